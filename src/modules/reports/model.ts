// Schemas of the report routes (feed-js ModerationClient, chat-js pushReport and
// getReportTags): report tags, reports, the review queue and its closing actions.
import { t } from 'elysia'

/** What can be reported (the SDK's ReportEntityType). */
export const ENTITY_TYPES = [
	'post',
	'comment',
	'reply',
	'conversation',
	'member',
	'chatroom',
] as const
export type EntityType = (typeof ENTITY_TYPES)[number]

/** What the queue holds: reported entities, and posts pending approval (their handle). */
export const QUEUE_TYPES = [...ENTITY_TYPES, 'pending_post'] as const
export type QueueType = (typeof QUEUE_TYPES)[number]

/**
 * The SDK's LMFeedReportStatus: the actions that close reports. Their order is the SDK's
 * ActionTaken numbering, which a closed report answers with (`action_taken`).
 */
export const ACTIONS_TAKEN = [
	'EDIT_MEMBER_PERMISSION',
	'REMOVE_FROM_COMMUNITY',
	'LEFT_THE_COMMUNITY',
	'RESPONSE_DELETED_BY_CM',
	'RESPONSE_DELETED_BY_CREATOR',
	'CHATROOM_DELETED_BY_CM',
	'CHATROOM_DELETED_BY_CREATOR',
	'PENDING_POST_APPROVED',
	'PENDING_POST_REJECTED',
	'POST_APPROVED',
	'POST_REJECTED',
	'COMMENT_APPROVED',
	'COMMENT_REJECTED',
] as const

/**
 * The closing actions PATCH /community/report takes: LMFeedReportStatus, and
 * ActionTaken's REMOVE_FROM_COMMUNITY (remove the accused).
 */
export const CLOSING_ACTIONS = [
	'EDIT_MEMBER_PERMISSION',
	'REMOVE_FROM_COMMUNITY',
	'PENDING_POST_APPROVED',
	'PENDING_POST_REJECTED',
	'POST_APPROVED',
	'POST_REJECTED',
	'COMMENT_APPROVED',
	'COMMENT_REJECTED',
] as const
export type ClosingAction = (typeof CLOSING_ACTIONS)[number]

export const TagsQuery = t.Object({
	entity_type: t.Optional(t.String({ maxLength: 20 })),
	// chat-js asks with `type` (a number: 0 member, 3 conversation, …); any value is taken
	type: t.Optional(t.String({ maxLength: 20 })),
})

export const NewTagBody = t.Object({
	entity_type: t.String({ minLength: 1, maxLength: 20 }),
	name: t.String({ minLength: 1, maxLength: 100 }),
	needs_reason: t.Optional(t.Boolean()),
})

export const TagParams = t.Object({ tag_id: t.String({ maxLength: 20 }) })

// Lenient as the SDKs send it: feed-js names the entity (entity_id, entity_type,
// accused_uuid); chat-js sends conversation_id or reported_member_id (a user id) instead.
const IdValue = t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Integer({ minimum: 1 })])
export const ReportBody = t.Object({
	entity_id: t.Optional(t.Nullable(IdValue)),
	entity_type: t.Optional(
		t.Nullable(t.Union([t.String({ maxLength: 20 }), t.Integer({ minimum: 0, maximum: 10 })])),
	),
	conversation_id: t.Optional(t.Nullable(IdValue)),
	reported_member_id: t.Optional(t.Nullable(IdValue)),
	tag_id: t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 20 })]),
	reason: t.Optional(t.Nullable(t.String({ maxLength: 1000 }))),
	accused_uuid: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
	uuid: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
})
export type ReportInput = typeof ReportBody.static

// feed-js writes `undefined` into the query for what it was not given: read as absent.
export const QueueQuery = t.Object({
	page: t.Optional(t.String({ maxLength: 12 })),
	page_size: t.Optional(t.String({ maxLength: 12 })),
	filter_type: t.Optional(t.String({ maxLength: 200 })),
	is_closed: t.Optional(t.String({ maxLength: 12 })),
})
export type QueueInput = typeof QueueQuery.static

export const CloseBody = t.Object({
	report_ids: t.Array(t.Integer({ minimum: 1 }), { minItems: 1, maxItems: 100 }),
	action_taken: t.String({ maxLength: 40 }),
})
export type CloseInput = typeof CloseBody.static

export const ModerationSettingsBody = t.Object({
	auto_hide_after_reports: t.Optional(
		t.Integer({
			minimum: 1,
			maximum: 1000,
			error: 'auto_hide_after_reports must be an integer from 1 to 1000',
		}),
	),
	post_moderation: t.Optional(
		t.Union([t.Literal('off'), t.Literal('new_members'), t.Literal('all')], {
			error: 'post_moderation must be off, new_members or all',
		}),
	),
	post_moderation_first_n: t.Optional(
		t.Integer({
			minimum: 1,
			maximum: 10_000,
			error: 'post_moderation_first_n must be an integer from 1 to 10000',
		}),
	),
})
export type ModerationSettingsInput = typeof ModerationSettingsBody.static
