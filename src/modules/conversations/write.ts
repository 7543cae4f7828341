// Writing conversations: post (a message, a reply or a poll), edit (the author) and
// delete (the author or a CM). Each write is one transaction with its tags and chat
// events; a poll's rules are checked before it and stored inside it. A new
// conversation's recipients are resolved after commit, from its notice (notices.ts).
import { type Db, sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { listenedEvents } from '../../webhooks/outbox'
import type { Session } from '../auth/plugin'
import { type ChatViewer, chatViewer, isCmViewer, postRoom, seeRoom } from '../chatrooms/access'
import { numericId } from '../chatrooms/repo'
import { raiseRoomVersion } from '../chatrooms/room-state'
import { POLL_STATE } from '../polls/model'
import { preparePoll, savePoll } from '../polls/service'
import { findUserById, findUsersByUuids, type UserRow } from '../users/repo'
import { taggedUuids, tagUsers } from '../users/tags'
import { resolveAttachments } from './attachments'
import { recordConversationEvents } from './events'
import { hydrate } from './hydrate'
import type { PostConversationInput } from './model'
import { type NewNotice, noticeCtes } from './notices'
import type { NewConversationFacts } from './recipients'
import {
	addTags,
	bumpRoomVersion,
	type ConversationRow,
	editConversation,
	findConversation,
	insertConversation,
	MESSAGE,
	markDeleted,
	POLL,
	tagsCte,
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

export async function postConversation(session: Session, input: PostConversationInput) {
	const viewer = chatViewer(session)
	const { room } = await postRoom(sql, viewer, input.chatroom_id)
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
	// Everything but the insert is read or written before the room's turn (the insert
	// takes it, in the transaction's last statement: chatrooms/log-repo.ts).
	const [author, tagged, listening] = await Promise.all([
		findUserById(sql, viewer.userId) as Promise<UserRow>,
		findUsersByUuids(sql, viewer.communityId, taggedUuids(text)),
		listenedEvents(sql, viewer.communityId),
	])
	const facts: Omit<NewConversationFacts, 'chatroomId' | 'authorId'> = {
		state: isPoll ? POLL : MESSAGE,
		taggedUserIds: tagged.map((u) => u.id),
		repliedToUserId: replied?.user_id ?? null,
	}
	const notice: NewNotice = {
		communityId: viewer.communityId,
		chatroomId: room.id,
		authorId: viewer.userId,
		facts,
		message: { room_title: room.title, author_name: author.name, text },
	}
	const row = await sql.begin(async (tx) => {
		const stored = await resolveAttachments(tx, viewer.communityId, viewer.userId, attachments)
		const extra =
			tagged.length > 0
				? tx`${tagsCte(tx, facts.taggedUserIds)}, ${noticeCtes(tx, notice)}`
				: noticeCtes(tx, notice)
		const { conversation, roomVersion } = await insertConversation(
			tx,
			{
				chatroom_id: room.id,
				community_id: viewer.communityId,
				user_id: viewer.userId,
				state: facts.state,
				text,
				attachments: stored,
				replied_conversation_id: replied?.id ?? null,
				temporary_id: input.temporary_id ?? null,
			},
			extra,
		)
		await raiseRoomVersion(room.id, roomVersion)
		if (draft)
			await savePoll(
				tx,
				{
					conversationId: conversation.id,
					chatroomId: room.id,
					communityId: viewer.communityId,
					creatorId: viewer.userId,
				},
				draft,
			)
		await recordConversationEvents(
			tx,
			{ room, conversation, author, replied, tagged, listening },
			true,
		)
		return conversation
	})
	const { conversations } = await hydrate(sql, viewer, [row])
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
		findUserById(sql, viewer.userId) as Promise<UserRow>,
		listenedEvents(sql, viewer.communityId),
	])
	const edited = await sql.begin(async (tx) => {
		const conversation = await editConversation(tx, row.id, text, Date.now())
		const tagged = await tagUsers(tx, viewer.communityId, [text], (ids) => addTags(tx, row.id, ids))
		await recordConversationEvents(
			tx,
			{ room, conversation, author, replied: null, tagged, listening },
			false,
		)
		// Last: the room's writers wait on its row from here to the commit.
		await raiseRoomVersion(row.chatroom_id, await bumpRoomVersion(tx, row.chatroom_id))
		return conversation
	})
	const { conversations } = await hydrate(sql, viewer, [edited])
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
			await markDeleted(tx, row.id, viewer.userId, now)
			await raiseRoomVersion(row.chatroom_id, await bumpRoomVersion(tx, row.chatroom_id))
		}
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
