// Request schemas of the conversation routes (DESIGN section 8). A poll is a
// conversation with state 10: its fields come from polls/model.ts.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { NumericId } from '../chatrooms/model'
import { PollCreateFields } from '../polls/model'
import { Attachment, MAX_TEXT } from '../posts/model'

export const MAX_PAGE = 100

export const PostConversationBody = t.Object({
	chatroom_id: NumericId,
	text: t.Optional(t.String({ maxLength: MAX_TEXT })),
	state: t.Optional(t.Union([t.Literal(0), t.Literal(10)], { error: 'state must be 0 or 10' })),
	replied_conversation_id: t.Optional(t.Nullable(NumericId)),
	temporary_id: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
	attachments: t.Optional(t.Array(Attachment, { maxItems: 10 })),
	...PollCreateFields,
})
export type PostConversationInput = typeof PostConversationBody.static

export const EditConversationBody = t.Object({
	conversation_id: NumericId,
	text: t.String({ minLength: 1, maxLength: MAX_TEXT }),
})

export const DeleteConversationBody = t.Object({
	conversation_ids: t.Array(NumericId, { minItems: 1, maxItems: 100 }),
})

export const ListQuery = t.Object({
	chatroom_id: t.String({ maxLength: 24 }),
	paginate_by: t.Optional(t.Integer({ minimum: 1 })),
	conversation_id: t.Optional(t.String({ maxLength: 24 })),
	scroll_direction: t.Optional(
		t.Integer({ minimum: 0, maximum: 1, error: 'scroll_direction must be 0 or 1' }),
	),
})

export const SyncQuery = t.Object({
	chatroom_id: t.String({ maxLength: 24 }),
	min_timestamp: t.Optional(t.Integer({ minimum: 0 })),
	max_timestamp: t.Optional(t.Integer({ minimum: 0 })),
	cursor: t.Optional(t.String({ maxLength: 64 })),
	...pageFields,
})

export const ReactionBody = t.Object({
	conversation_id: NumericId,
	chatroom_id: t.Optional(t.Nullable(NumericId)),
	reaction: t.String({ minLength: 1, maxLength: 32, error: 'reaction must be 1 to 32 characters' }),
})

export const UnreactBody = t.Object({
	conversation_id: NumericId,
	chatroom_id: t.Optional(t.Nullable(NumericId)),
	reaction: t.Optional(t.Nullable(t.String({ maxLength: 32 }))),
})

export const TopicBody = t.Object({
	chatroom_id: NumericId,
	conversation_id: t.Optional(t.Nullable(NumericId)),
})
