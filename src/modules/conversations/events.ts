// Chat events of a new or edited conversation (DESIGN section 10, source `chat`):
// conversation.create for every conversation, chatroom.message.sent (state 0) or
// chatroom.poll.created (state 10), chatroom.user.tagged for newly tagged members and
// chatroom.conversation.replied for a reply. Recorded in the writer's transaction, and
// only the types the community has webhooks for (`listening`, read by the writer before
// its transaction): each carries every participant's uuid, which a room of 1,000 would
// otherwise write several times per message for nobody.

import type { Db } from '../../lib/db'
import { recordEvent } from '../../webhooks/outbox'
import { presentChatroomForWebhook } from '../chatrooms/present'
import { type ChatroomRow, communityName } from '../chatrooms/repo'
import { presentUserForWebhook } from '../users/present'
import { findUsersByIds, type UserRow } from '../users/repo'
import { presentConversationForWebhook } from './present'
import { type ConversationRow, POLL, participantUuids } from './repo'

interface Context {
	room: ChatroomRow
	conversation: ConversationRow
	author: UserRow
	replied: ConversationRow | null
	tagged: UserRow[]
	/** webhooks/outbox.ts listenedEvents of the community */
	listening: Set<string>
}

/** The events a conversation's write fires, before asking who listens. */
function firedBy(ctx: Context, isNew: boolean): string[] {
	const sent = ctx.conversation.state === POLL ? 'chatroom.poll.created' : 'chatroom.message.sent'
	return [
		...(isNew ? ['conversation.create', sent] : []),
		...(ctx.tagged.length > 0 ? ['chatroom.user.tagged'] : []),
		...(isNew && ctx.replied ? ['chatroom.conversation.replied'] : []),
	]
}

export async function recordConversationEvents(tx: Db, ctx: Context, isNew: boolean) {
	if (!firedBy(ctx, isNew).some((event) => ctx.listening.has(event))) return
	const communityId = ctx.room.community_id
	const [name, members] = await Promise.all([
		communityName(tx, communityId),
		participantUuids(tx, communityId, ctx.room.id),
	])
	const chatroom = presentChatroomForWebhook(ctx.room, name)
	const form = (c: ConversationRow, uuid: string) => presentConversationForWebhook(c, uuid, members)
	const conversation = form(ctx.conversation, ctx.author.uuid)
	const created_by_user = presentUserForWebhook(ctx.author)
	const record = async (event: string, data: Record<string, unknown>) => {
		if (ctx.listening.has(event))
			await recordEvent(tx, { communityId, event, source: 'chat', data })
	}
	if (isNew) {
		const base = { chatroom, conversation, created_by_user }
		await record('conversation.create', base)
		const sent = ctx.conversation.state === POLL ? 'chatroom.poll.created' : 'chatroom.message.sent'
		await record(sent, base)
	}
	if (ctx.tagged.length > 0)
		await record('chatroom.user.tagged', {
			chatroom,
			conversation,
			created_by_user,
			tagged_users: ctx.tagged.map(presentUserForWebhook),
		})
	if (isNew && ctx.replied) {
		const [original] = await findUsersByIds(tx, communityId, [ctx.replied.user_id])
		await record('chatroom.conversation.replied', {
			chatroom,
			original_conversation: form(ctx.replied, original?.uuid ?? ''),
			replied_conversation: conversation,
			original_conversation_user: original ? presentUserForWebhook(original) : null,
			replied_conversation_user: created_by_user,
		})
	}
}
