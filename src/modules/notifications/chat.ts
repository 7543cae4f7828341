// Chat notifications: a new conversation is pushed to the room's participants that
// the chat module's seam (conversations/recipients.ts recipientsOf: not muted, by
// noti_state) names, and told to `notifications.chat` webhooks, recipients' customer
// ids 1,000 per page (recorded only when the community has such a webhook: `toWebhooks`). Called once
// per conversation by the worker that expands its notice (conversations/notices.ts),
// after the message committed, with the recipients it asked the seam for (so this
// folder never imports the chat ones).

import type { Db } from '../../lib/db'
import { enqueueConversationPushes } from '../../push/outbox'
import { recordEvent } from '../../webhooks/outbox'
import { plainText } from './present'

export const chatRecipientsPerPage = 1000
const SUB_TITLE_MAX = 200

type NotifyReason = 'message' | 'tagged' | 'replied' | 'poll' | 'direct'

/** One recipient as the chat seam names it (conversations/recipients.ts ChatRecipient). */
export interface ChatRecipient {
	user_id: number
	uuid: string
	user_unique_id: string | null
	reason: NotifyReason
}

export interface NewConversation {
	communityId: number
	chatroomId: string
	authorId: number
	conversationId: string
	recipients: ChatRecipient[]
	roomTitle: string
	authorName: string
	text: string
	/** the community has a `notifications.chat` webhook: record the pages */
	toWebhooks: boolean
}

const lines: Record<NotifyReason, (n: NewConversation) => string> = {
	message: (n) => `${n.authorName}: ${plainText(n.text)}`,
	poll: (n) => `${n.authorName} created a poll: ${plainText(n.text)}`,
	tagged: (n) => `${n.authorName} tagged you: ${plainText(n.text)}`,
	replied: (n) => `${n.authorName} replied to you: ${plainText(n.text)}`,
	direct: (n) => `${n.authorName}: ${plainText(n.text)}`,
}

function payloadFor(n: NewConversation, reason: NotifyReason) {
	return {
		title: n.roomTitle,
		sub_title: lines[reason](n).slice(0, SUB_TITLE_MAX),
		route: `route://collabcard?collabcard_id=${n.chatroomId}&conversation_id=${n.conversationId}`,
		category: `chat_${reason}`,
	}
}

export async function onConversationCreated(tx: Db, n: NewConversation): Promise<void> {
	const { recipients } = n
	if (recipients.length === 0) return
	const byReason = new Map<NotifyReason, number[]>()
	for (const r of recipients) {
		const ids = byReason.get(r.reason)
		if (ids) ids.push(r.user_id)
		else byReason.set(r.reason, [r.user_id])
	}
	for (const [reason, recipientIds] of byReason)
		for (let at = 0; at < recipientIds.length; at += chatRecipientsPerPage)
			await enqueueConversationPushes(tx, {
				communityId: n.communityId,
				conversationId: n.conversationId,
				actorId: n.authorId,
				recipientIds: recipientIds.slice(at, at + chatRecipientsPerPage),
				payload: payloadFor(n, reason),
			})
	if (!n.toWebhooks) return
	const uuids = recipients.map((r) => r.user_unique_id ?? r.uuid)
	const totalPages = Math.ceil(uuids.length / chatRecipientsPerPage)
	const notification_payload = { ...payloadFor(n, 'message'), community_id: String(n.communityId) }
	for (let page = 1; page <= totalPages; page++) {
		const data = {
			current_page: page,
			total_pages: totalPages,
			notification_payload,
			uuids: uuids.slice((page - 1) * chatRecipientsPerPage, page * chatRecipientsPerPage),
		}
		await recordEvent(tx, {
			communityId: n.communityId,
			event: 'notifications.chat',
			source: 'chat',
			data,
		})
	}
}
