// Writing conversations: post (a message, a reply or a poll), edit (the author) and
// delete (the author or a CM). Each write is one transaction with its tags and chat
// events (new conversations of concurrent writers share one: post-batch.ts); a poll's
// rules are checked before it and stored inside it. A new conversation's recipients
// are resolved after commit, from its notice (notices.ts).
import { type Db, sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { liveScopes, publishLive } from '../../live'
import { listenedEvents } from '../../webhooks/outbox'
import type { Session } from '../auth/plugin'
import { Rights, requireRight } from '../auth/rights'
import { type ChatViewer, chatViewer, DM, isCmViewer, postRoom, seeRoom } from '../chatrooms/access'
import { assertCanMessage } from '../chatrooms/dm-rule'
import { numericId } from '../chatrooms/repo'
import { raiseRoomVersion } from '../chatrooms/room-state'
import { POLL_STATE } from '../polls/model'
import { preparePoll } from '../polls/service'
import { findUserById, findUsersByUuids, type UserRow } from '../users/repo'
import { taggedUuids, tagUsers } from '../users/tags'
import { recordConversationEvents } from './events'
import { hydrate, hydrateShared } from './hydrate'
import type { PostConversationInput } from './model'
import type { NewNotice } from './notices'
import { writeConversation } from './post-batch'
import type { NewConversationFacts } from './recipients'
import {
	addTags,
	bumpRoomVersion,
	type ConversationRow,
	editConversation,
	findConversation,
	MESSAGE,
	markDeleted,
	POLL,
	setHeld,
} from './repo'

/** A conversation of the viewer's community in a room they can see; 404 otherwise. */
async function visibleConversation(
	db: Db,
	viewer: ChatViewer,
	id: string | number,
): Promise<ConversationRow> {
	const conversationId = numericId(id)
	const row = conversationId ? await findConversation(db, viewer.communityId, conversationId) : null
	if (!row) throw notFound('Conversation')
	await seeRoom(db, viewer, row.chatroom_id)
	return row
}

/**
 * Posts a conversation. In a DM room (type 10) the DM rule (chatrooms/dm-rule.ts) must
 * let the author message the other member; `dmRequest` is the request's own message,
 * which the DM module sends once it recorded the request.
 */
export async function postConversation(
	session: Session,
	input: PostConversationInput,
	options: { dmRequest?: boolean } = {},
) {
	requireRight(session, Rights.respondInChatrooms)
	if (input.state === POLL_STATE) requireRight(session, Rights.createPolls)
	const viewer = chatViewer(session)
	const { room } = await postRoom(sql, viewer, input.chatroom_id)
	if (room.type === DM && !options.dmRequest)
		await assertCanMessage(sql, viewer.communityId, room.id, viewer.userId)
	const text = input.text ?? ''
	const attachments = input.attachments ?? []
	const isPoll = input.state === POLL_STATE
	if (!isPoll && text.trim() === '' && attachments.length === 0)
		throw badRequest('A conversation needs text or attachments')
	const draft = isPoll ? await preparePoll(viewer.communityId, input) : null
	let replied: ConversationRow | null = null
	if (input.replied_conversation_id !== undefined && input.replied_conversation_id !== null) {
		replied = await visibleConversation(sql, viewer, input.replied_conversation_id)
		if (replied.chatroom_id !== room.id) throw notFound('Conversation')
	}
	// Everything but the writes is read before the transaction; the room's turn is taken
	// by the insert (chatrooms/log-repo.ts), shared by a batch of writers (post-batch.ts).
	const [author, tagged, listening] = await Promise.all([
		findUserById(sql, viewer.communityId, viewer.userId) as Promise<UserRow>,
		findUsersByUuids(sql, viewer.communityId, taggedUuids(text)),
		listenedEvents(sql, viewer.communityId),
	])
	const facts: Omit<NewConversationFacts, 'chatroomId' | 'authorId'> = {
		state: isPoll ? POLL : MESSAGE,
		taggedUserIds: tagged.map((u) => u.id),
		repliedToUserId: replied?.user_id ?? null,
		direct: room.type === DM,
	}
	const notice: NewNotice = {
		communityId: viewer.communityId,
		chatroomId: room.id,
		authorId: viewer.userId,
		facts,
		message: { room_title: room.title, author_name: author.name, text },
	}
	const row = await writeConversation({
		communityId: viewer.communityId,
		userId: viewer.userId,
		room,
		state: facts.state,
		text,
		attachments,
		replied,
		temporaryId: input.temporary_id == null ? null : String(input.temporary_id),
		draft,
		author,
		tagged,
		listening,
		notice,
	})
	const { conversations } = await hydrate(sql, viewer, [row])
	await publishLive(liveScopes.chatroom(viewer.communityId, room.id), {
		type: 'conversation.new',
		data: { conversation: conversations[0] },
	})
	return { id: row.id, conversation: conversations[0] }
}

export async function editText(session: Session, conversationId: string | number, text: string) {
	const viewer = chatViewer(session)
	const row = await visibleConversation(sql, viewer, conversationId)
	if (row.user_id !== viewer.userId) throw forbidden('Only the author may edit a conversation')
	if (row.deleted_by !== null) throw badRequest('A deleted conversation cannot be edited')
	if (row.state !== MESSAGE && row.state !== POLL)
		throw badRequest('Only messages and polls can be edited')
	const room = await seeRoom(sql, viewer, row.chatroom_id)
	const [author, listening] = await Promise.all([
		findUserById(sql, viewer.communityId, viewer.userId) as Promise<UserRow>,
		listenedEvents(sql, viewer.communityId),
	])
	const edited = await sql.begin(async (tx) => {
		const conversation = await editConversation(tx, viewer.communityId, row.id, text, Date.now())
		const tagged = await tagUsers(tx, viewer.communityId, [text], (ids) =>
			addTags(tx, viewer.communityId, row.id, ids),
		)
		await recordConversationEvents(
			tx,
			{ room, conversation, author, replied: null, tagged, listening },
			false,
		)
		// Last: the room's writers wait on its row from here to the commit.
		await raiseRoomVersion(
			row.chatroom_id,
			await bumpRoomVersion(tx, row.community_id, row.chatroom_id),
		)
		return conversation
	})
	const { conversations } = await hydrate(sql, viewer, [edited])
	await publishLive(liveScopes.chatroom(row.community_id, row.chatroom_id), {
		type: 'conversation.edited',
		data: { conversation: conversations[0] },
	})
	return { conversation: conversations[0] }
}

/** Deletes all the given conversations or none (404 for an unseen one, 403 for another's). */
export async function deleteConversations(session: Session, ids: (string | number)[]) {
	const viewer = chatViewer(session)
	const rows: ConversationRow[] = []
	for (const id of new Set(ids.map(String))) rows.push(await visibleConversation(sql, viewer, id))
	for (const row of rows)
		if (row.user_id !== viewer.userId && !isCmViewer(viewer))
			throw forbidden('Only the author or a community manager may delete a conversation')
	const now = Date.now()
	await sql.begin(async (tx) => {
		for (const row of rows) {
			await markDeleted(tx, row.community_id, row.id, viewer.userId, now)
			await raiseRoomVersion(
				row.chatroom_id,
				await bumpRoomVersion(tx, row.community_id, row.chatroom_id),
			)
		}
	})
	for (const row of rows)
		await publishLive(liveScopes.chatroom(row.community_id, row.chatroom_id), {
			type: 'conversation.deleted',
			data: { conversation_id: String(row.id), chatroom_id: String(row.chatroom_id) },
		})
	const { conversations } = await hydrate(
		sql,
		viewer,
		await Promise.all(rows.map((r) => findConversation(sql, viewer.communityId, r.id))).then(
			(found) => found.filter((r): r is ConversationRow => r !== null),
		),
	)
	return { conversations }
}

/**
 * Holds reported conversations back from every reader (`held`: answered as removed) or
 * lets them go, inside the caller's transaction (modules/reports); the rooms' versions
 * rise with them, so no cached page keeps the old form. Returns the rows that changed,
 * for announceHeld after commit.
 */
export async function holdConversations(
	tx: Db,
	communityId: number,
	ids: string[],
	held: boolean,
): Promise<ConversationRow[]> {
	const rows = await setHeld(tx, communityId, ids, held, Date.now())
	for (const row of rows)
		await raiseRoomVersion(row.chatroom_id, await bumpRoomVersion(tx, communityId, row.chatroom_id))
	return rows
}

/**
 * Tells live readers of the rooms: a held conversation as deleted, a released one as
 * edited (its shared form: a poll's counts are refetched as after any edit).
 */
export async function announceHeld(rows: ConversationRow[]) {
	for (const row of rows) {
		const ids = { conversation_id: String(row.id), chatroom_id: String(row.chatroom_id) }
		if (row.held) {
			await publishLive(liveScopes.chatroom(row.community_id, row.chatroom_id), {
				type: 'conversation.deleted',
				data: ids,
			})
			continue
		}
		const { conversations } = await hydrateShared(sql, [row])
		await publishLive(liveScopes.chatroom(row.community_id, row.chatroom_id), {
			type: 'conversation.edited',
			data: { conversation: conversations[0] },
		})
	}
}
