// Request schemas of the topic routes. Values a migration sample sends loosely
// (is_searchable as "true") are typed unknown here and checked by the service.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

const TopicFields = {
	priority: t.Optional(t.Unknown()),
	is_searchable: t.Optional(t.Unknown()),
	is_enabled: t.Optional(t.Unknown()),
	metadata: t.Optional(t.Unknown()),
}

export const TopicInput = t.Object({
	name: t.Unknown(),
	parent_id: t.Optional(t.Unknown()),
	...TopicFields,
})

export const CreateTopicsBody = t.Object({
	names: t.Optional(t.Array(t.Unknown(), { maxItems: 500 })),
	topics: t.Optional(t.Array(TopicInput, { maxItems: 500 })),
})

export const EditTopicBody = t.Object({ name: t.Optional(t.Unknown()), ...TopicFields })

export const TopicParams = t.Object({ topic_id: t.String({ maxLength: 100 }) })

export const ListTopicsQuery = t.Object({
	...pageFields,
	is_enabled: t.Optional(t.String()),
	search_type: t.Optional(t.String()),
	search: t.Optional(t.String({ maxLength: 200 })),
	min_posts: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000 })),
	parent_ids: t.Optional(t.String({ maxLength: 5000 })),
	topics_order_by: t.Optional(t.String()),
})

export const DeleteTopicsBody = t.Optional(
	t.Object({
		topic_ids: t.Optional(
			t.Union([t.Array(t.String({ maxLength: 100 }), { maxItems: 500 }), t.String()]),
		),
	}),
)
