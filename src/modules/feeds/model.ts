// Feed query parameters: paging (defaults 1/20, page_size capped at 100), an optional
// cursor, and id lists given as a comma list or a JSON array (lib/id-list.ts parses them).
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

// Re-exported for scripts/bench/feeds-server.ts, which parses a feed query as the route does.
export { parseIdList } from '../../lib/id-list'

const IdList = t.Optional(
	t.Union([t.String({ maxLength: 4000 }), t.Array(t.String({ maxLength: 100 }))]),
)

export const FeedQuery = t.Object({
	...pageFields,
	cursor: t.Optional(t.String({ maxLength: 200 })),
	topic_ids: IdList,
	widget_ids: IdList,
})

export const ConnectionFeedQuery = t.Object(pageFields)

export const PersonalisedQuery = t.Object({
	...pageFields,
	should_reorder: t.Optional(t.Boolean()),
	should_recompute: t.Optional(t.Boolean()),
	/** Comma-separated topic names. */
	topics: t.Optional(t.String({ maxLength: 2000 })),
})
