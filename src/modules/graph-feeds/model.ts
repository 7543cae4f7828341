// Query schemas of the connection and personalised feeds.
import { t } from 'elysia'

export const ConnectionFeedQuery = t.Object({
	page: t.Optional(t.Integer({ minimum: 1, default: 1 })),
	page_size: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
})

export const PersonalisedQuery = t.Object({
	page: t.Optional(t.Integer({ minimum: 1, default: 1 })),
	page_size: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
	should_reorder: t.Optional(t.Boolean()),
	should_recompute: t.Optional(t.Boolean()),
	/** Comma-separated topic names. */
	topics: t.Optional(t.String({ maxLength: 2000 })),
})
