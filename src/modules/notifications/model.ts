// The notification feed's vocabulary (DESIGN section 9): action and entity codes with
// their v1 string names, and the bodies of the activity routes.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

/** Integer action codes as clients parse them; the string is the x-accept-version: v1 form. */
export const Action = {
	likeOnPost: 6,
	commentOnPost: 7,
	likeOnComment: 8,
	replyOnComment: 9,
	taggedInPost: 10,
	taggedInComment: 11,
	commentOnCommentedPost: 12,
	custom: 99,
	connectionRequest: 100,
	connectionAccepted: 101,
} as const
export type ActionCode = (typeof Action)[keyof typeof Action]

export const actionNames: Record<ActionCode, string> = {
	6: 'like_on_your_post',
	7: 'comment_on_your_post',
	8: 'like_on_your_comment',
	9: 'reply_on_your_comment',
	10: 'tagged_in_post',
	11: 'tagged_in_comment',
	12: 'comment_on_followed_post',
	99: 'custom_activity',
	100: 'connection_request',
	101: 'connection_accepted',
}

/** What the activity says after the actor's name ("Alice liked your post"). */
export const actionVerbs: Record<ActionCode, string> = {
	6: 'liked your post',
	7: 'commented on your post',
	8: 'liked your comment',
	9: 'replied to your comment',
	10: 'tagged you in a post',
	11: 'tagged you in a comment',
	12: 'commented on a post you commented on',
	99: '',
	100: 'sent you a connection request',
	101: 'accepted your connection request',
}

export const EntityType = { post: 0, comment: 1, user: 2 } as const
export type EntityCode = (typeof EntityType)[keyof typeof EntityType]
export const entityNames: Record<EntityCode, 'post' | 'comment' | 'user'> = {
	0: 'post',
	1: 'comment',
	2: 'user',
}

export const ActivityQuery = t.Object(pageFields)

export const CustomActivityBody = t.Object({
	action: t.String({ maxLength: 64 }),
	action_by: t.Optional(t.String({ maxLength: 200 })),
	action_on: t.Array(t.String({ maxLength: 200 }), { minItems: 1, maxItems: 100_000 }),
	entity_type: t.String({ maxLength: 32 }),
	entity_id: t.String({ minLength: 1, maxLength: 200 }),
	activity_text: t.String({ minLength: 1, maxLength: 2000 }),
})
export type CustomActivityInput = typeof CustomActivityBody.static

/** mark_read bodies are optional, and may come form-urlencoded (a client quirk). */
export const MarkReadBody = t.Optional(t.Record(t.String(), t.Unknown()))
