// The conversation shapes: the client form (DESIGN section 8; the text is `answer`)
// and the webhook form (SPEC "Conversation"). Deleted conversations stay listed with
// `deleted_by`, an empty answer and no attachments, so clients can drop their copy; a
// conversation held back by reports is answered the same way (without `deleted_by`)
// until a CM decides, so a client that synced it drops it and gets it back if released.
import type { Member } from '../users/present'
import { presentAttachment } from './attachments'
import type { ConversationRow } from './repo'

export interface ConversationContext {
	member: Member | null
	/** the conversation replied to, already presented */
	replied: object | null
	poll: Record<string, unknown> | null
	/** `{member, reaction}` per member who reacted (DESIGN section 8) */
	reactions?: { member: Member | null; reaction: string }[]
}

export function presentConversation(c: ConversationRow, ctx: ConversationContext) {
	const deleted = c.deleted_by !== null || c.held
	return {
		id: c.id,
		chatroom_id: c.chatroom_id,
		community_id: c.community_id,
		member: ctx.member,
		answer: deleted ? '' : c.text,
		state: c.state,
		created_epoch: c.created_at,
		created_at: c.created_at,
		updated_at: c.updated_at,
		is_edited: c.is_edited,
		is_deleted: deleted,
		deleted_by: c.deleted_by !== null ? String(c.deleted_by) : null,
		attachments: deleted ? [] : c.attachments.map(presentAttachment),
		reply_conversation: c.replied_conversation_id,
		reply_conversation_object: ctx.replied,
		temporary_id: c.temporary_id,
		reactions: deleted ? [] : (ctx.reactions ?? []),
		...(ctx.poll && !deleted ? ctx.poll : {}),
		...(c.state === 10 && deleted ? { polls: [] } : {}),
	}
}

export type Conversation = ReturnType<typeof presentConversation>

export function presentConversationForWebhook(
	c: ConversationRow,
	creatorUuid: string,
	members: string[],
) {
	return {
		conversation_id: c.id,
		creator_id: creatorUuid,
		members,
		message: c.deleted_by !== null || c.held ? '' : c.text,
		timestamp: c.created_at,
	}
}
