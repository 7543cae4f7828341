// Reactions on conversations (DESIGN section 19): one emoji per member and conversation,
// changed by reacting again, removed with DELETE. A reaction is a change of the
// conversation: it bumps the room's version (so the cached newest page follows), moves
// the conversation's updated_at (so sync clients see it) and records
// `chatroom.conversation.reacted` / `chatroom.conversation.reaction.removed` in the same
// transaction. Reacting needs a seat in the room (or the CM role), like voting; in a DM
// the DM rule applies as for posting.

import { type Db, sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { liveScopes, publishLive } from '../../live'
import { listenedEvents, recordEvent } from '../../webhooks/outbox'
import type { Session } from '../auth/plugin'
import { chatViewer, DM, isCmViewer, seeRoomAs } from '../chatrooms/access'
import { assertCanMessage } from '../chatrooms/dm-rule'
import { presentChatroomForWebhook } from '../chatrooms/present'
import { communityName, numericId } from '../chatrooms/repo'
import { raiseRoomVersion } from '../chatrooms/room-state'
import { presentUserForWebhook } from '../users/present'
import { findUserById, findUsersByIds, type UserRow } from '../users/repo'
import { presentConversationForWebhook } from './present'
import { deleteReaction, putReaction, touchConversation } from './reactions-repo'
import { bumpRoomVersion, type ConversationRow, findConversation, participantUuids } from './repo'

export interface ReactionInput {
	conversation_id: string | number
	chatroom_id?: string | number | null
	reaction?: string
}

async function reactable(session: Session, input: ReactionInput) {
	const viewer = chatViewer(session)
	const id = numericId(input.conversation_id)
	const conversation = id ? await findConversation(sql, viewer.communityId, id) : null
	if (!conversation) throw notFound('Conversation')
	const { room, seat } = await seeRoomAs(sql, viewer, conversation.chatroom_id)
	if (
		input.chatroom_id !== undefined &&
		input.chatroom_id !== null &&
		numericId(input.chatroom_id) !== room.id
	)
		throw notFound('Conversation')
	if (!seat && !isCmViewer(viewer)) throw forbidden('Join the chatroom to react in it')
	if (room.type === DM) await assertCanMessage(sql, viewer.communityId, room.id, viewer.userId)
	if (conversation.deleted_by !== null)
		throw badRequest('A deleted conversation cannot be reacted to')
	return { room, conversation }
}

export async function react(session: Session, input: ReactionInput & { reaction: string }) {
	const reaction = input.reaction.trim()
	if (reaction === '') throw badRequest('reaction must not be empty')
	const { room, conversation } = await reactable(session, input)
	const changed = await sql.begin(async (tx) => {
		const now = Date.now()
		const changed = await putReaction(tx, {
			community_id: session.communityId,
			conversation_id: conversation.id,
			user_id: session.userId,
			reaction,
			chatroom_id: room.id,
			now,
		})
		if (!changed) return false
		await changedConversation(tx, session.communityId, room.id, conversation.id, now)
		await recordReactionEvent(
			tx,
			session,
			room,
			conversation,
			'chatroom.conversation.reacted',
			reaction,
		)
		return true
	})
	if (changed) await announceReaction(session, room.id, conversation.id, reaction)
}

/** Tells the room's live readers, after the commit (publishLive never throws). */
const announceReaction = (
	session: Session,
	chatroomId: string,
	conversationId: string,
	reaction: string | null,
) =>
	publishLive(liveScopes.chatroom(session.communityId, chatroomId), {
		type: reaction === null ? 'reaction.removed' : 'reaction.added',
		data: {
			chatroom_id: chatroomId,
			conversation_id: conversationId,
			member_id: session.userId,
			reaction,
		},
	})

export async function unreact(session: Session, input: ReactionInput) {
	const { room, conversation } = await reactable(session, input)
	const removed = await sql.begin(async (tx) => {
		if (!(await deleteReaction(tx, session.communityId, conversation.id, session.userId)))
			return false
		await changedConversation(tx, session.communityId, room.id, conversation.id, Date.now())
		await recordReactionEvent(
			tx,
			session,
			room,
			conversation,
			'chatroom.conversation.reaction.removed',
			input.reaction ?? null,
		)
		return true
	})
	if (removed) await announceReaction(session, room.id, conversation.id, null)
}

async function changedConversation(
	tx: Db,
	communityId: number,
	chatroomId: string,
	id: string,
	now: number,
) {
	await touchConversation(tx, communityId, id, now)
	await raiseRoomVersion(chatroomId, await bumpRoomVersion(tx, communityId, chatroomId))
}

async function recordReactionEvent(
	tx: Db,
	session: Session,
	room: Parameters<typeof presentChatroomForWebhook>[0],
	conversation: ConversationRow,
	event: string,
	reaction: string | null,
) {
	// Only when a webhook listens: the event carries every participant's uuid.
	if (!(await listenedEvents(tx, session.communityId)).has(event)) return
	const [name, user, [author], members] = await Promise.all([
		communityName(tx, session.communityId),
		findUserById(tx, session.communityId, session.userId),
		findUsersByIds(tx, session.communityId, [conversation.user_id]),
		participantUuids(tx, session.communityId, room.id),
	])
	await recordEvent(tx, {
		communityId: session.communityId,
		event,
		source: 'chat',
		data: {
			chatroom: presentChatroomForWebhook(room, name),
			conversation: presentConversationForWebhook(conversation, author?.uuid ?? '', members),
			user: presentUserForWebhook(user as UserRow),
			reaction,
		},
	})
}
