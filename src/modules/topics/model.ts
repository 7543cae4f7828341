// Request schemas of the topic routes; service inputs are their static types. Values a
// migration sample sends loosely are part of the schema, so /openapi shows them:
// booleans also as "true"/"false", priority also as a decimal string.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { Int, OkTwice, Shape } from '../../lib/response'

/** true/false, or the strings "true"/"false". */
export const LenientBoolean = t.Union([t.Boolean(), t.Literal('true'), t.Literal('false')], {
	error: 'must be true or false (or "true"/"false")',
})
export type LenientBoolean = typeof LenientBoolean.static

/** A number, or a decimal string of one. */
const LenientNumber = t.Union(
	[t.Number(), t.String({ pattern: '^\\s*-?\\d+(\\.\\d+)?\\s*$', maxLength: 30 })],
	{ error: 'priority must be a number' },
)

/** Trimmed, non-empty and at most 100 characters once trimmed (checked by the service). */
const TopicName = t.String({ maxLength: 200 })

const TopicFields = {
	priority: t.Optional(t.Union([LenientNumber, t.Null()])),
	is_searchable: t.Optional(t.Union([LenientBoolean, t.Null()])),
	is_enabled: t.Optional(t.Union([LenientBoolean, t.Null()])),
	// Unknown on purpose: Elysia coerces any value into a t.Record/t.Object here ("x" became
	// {"0":"x"}); the service refuses what is not an object.
	metadata: t.Optional(t.Unknown({ description: 'an object; anything else is 400' })),
}

export const TopicInput = t.Object({
	name: TopicName,
	/** '' or null: a root topic */
	parent_id: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Null()])),
	...TopicFields,
})
export type TopicInput = typeof TopicInput.static

export const CreateTopicsBody = t.Object({
	names: t.Optional(t.Array(TopicName, { maxItems: 500 })),
	topics: t.Optional(t.Array(TopicInput, { maxItems: 500 })),
})

export const EditTopicBody = t.Object({ name: t.Optional(TopicName), ...TopicFields })
export type EditTopicInput = typeof EditTopicBody.static

export const TopicParams = t.Object({ topic_id: t.String({ maxLength: 100 }) })

export const topicOrders = ['priority', 'name', 'created_at', 'post_count'] as const

export const ListTopicsQuery = t.Object({
	...pageFields,
	is_enabled: t.Optional(t.Boolean()),
	search_type: t.Optional(t.Literal('name', { error: 'search_type must be name' })),
	search: t.Optional(t.String({ maxLength: 200 })),
	min_posts: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000 })),
	/** a comma list or a JSON array of parent ids; '' stands for root */
	parent_ids: t.Optional(t.String({ maxLength: 5000 })),
	topics_order_by: t.Optional(
		t.Union(
			[t.Literal('priority'), t.Literal('name'), t.Literal('created_at'), t.Literal('post_count')],
			{ error: `topics_order_by must be one of ${topicOrders.join(', ')}` },
		),
	),
})
export type TopicListQuery = typeof ListTopicsQuery.static

export const DeleteTopicsBody = t.Optional(
	t.Object({
		topic_ids: t.Optional(
			t.Union([t.Array(t.String({ maxLength: 100 }), { maxItems: 500 }), t.String()]),
		),
	}),
)

export const Topic = Shape({
	id: t.String(),
	_id: t.String(),
	name: t.String(),
	priority: t.Number(),
	is_searchable: t.Boolean(),
	parent_id: t.String({ description: "'' for a root topic" }),
	level: Int(),
	is_enabled: t.Boolean(),
	metadata: t.Unknown(),
	post_count: Int(),
	created_at: t.Number(),
	updated_at: t.Number(),
})

export const TopicsReply = OkTwice({ topics: t.Array(Topic) })
export const TopicListReply = OkTwice({
	page: Int(),
	page_size: Int(),
	total: Int(),
	topics: t.Array(Topic),
})
export const TopicReply = OkTwice({ topic: Topic })
export const DeletedTopicsReply = OkTwice({
	deleted: t.Array(Shape({ topic_id: t.String(), status: t.String() })),
	failed: t.Array(Shape({ topic_id: t.String(), status: t.String(), reason: t.String() })),
})

/** feed-js updateUserTopics sends `{topic_ids: {id: chosen}}`; a list of ids is read as all chosen. */
export const ChosenTopicsBody = t.Object({
	topic_ids: t.Union([
		t.Record(t.String({ maxLength: 100 }), t.Boolean()),
		t.Array(t.String({ maxLength: 100 }), { maxItems: 100 }),
	]),
})

export const ChosenTopicsParams = t.Object({ uuid: t.String({ maxLength: 100 }) })

export const ChosenTopicsQuery = t.Object({
	uuids: t.Optional(
		t.String({ maxLength: 4000, description: 'a JSON array or comma list of uuids' }),
	),
})
