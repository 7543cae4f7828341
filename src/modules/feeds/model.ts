// Feed query parameters: paging (defaults 1/20, page_size capped at 100), an optional
// cursor, and id lists given as a comma list or a JSON array.
import { t } from 'elysia'
import { badRequest } from '../../lib/errors'
import { pageFields } from '../../lib/paging'

const MAX_IDS = 50

const IdList = t.Optional(
	t.Union([t.String({ maxLength: 4000 }), t.Array(t.String({ maxLength: 100 }))]),
)

export const FeedQuery = t.Object({
	...pageFields,
	cursor: t.Optional(t.String({ maxLength: 200 })),
	topic_ids: IdList,
	widget_ids: IdList,
})

/** `a,b`, `["a","b"]` or a repeated parameter → distinct ids. */
export function parseIdList(name: string, raw: string | string[] | undefined): string[] {
	if (raw === undefined) return []
	// The common form, a plain comma list, without the cleaning below (a feed read parses
	// its query twice: for its early read and for the handler).
	if (typeof raw === 'string' && PLAIN_LIST.test(raw)) return distinct(name, raw.split(','))
	let items: unknown[] = Array.isArray(raw) ? raw : []
	if (typeof raw === 'string') {
		const trimmed = raw.trim()
		if (trimmed.startsWith('[')) {
			try {
				items = JSON.parse(trimmed)
			} catch {
				throw badRequest(`${name} must be a comma-separated list or a JSON array`)
			}
			if (!Array.isArray(items))
				throw badRequest(`${name} must be a comma-separated list or a JSON array`)
		} else items = trimmed.split(',')
	}
	// Elysia may already have split a JSON array, leaving each element quoted.
	const clean = (item: unknown) =>
		String(item)
			.trim()
			.replace(/^\[|\]$/g, '')
			.replace(/^"(.*)"$/, '$1')
			.trim()
	return distinct(name, items.map(clean))
}

/** Ids without quotes, brackets or spaces, comma-separated. */
const PLAIN_LIST = /^[^"[\]\s]*$/

function distinct(name: string, items: string[]): string[] {
	// indexOf, not a Set: lists are short, and a Set per read showed in the profile.
	const ids = items.filter((id, i) => id !== '' && items.indexOf(id) === i)
	if (ids.length > MAX_IDS) throw badRequest(`${name} may name at most ${MAX_IDS} ids`)
	return ids
}

export const ConnectionFeedQuery = t.Object(pageFields)

export const PersonalisedQuery = t.Object({
	...pageFields,
	should_reorder: t.Optional(t.Boolean()),
	should_recompute: t.Optional(t.Boolean()),
	/** Comma-separated topic names. */
	topics: t.Optional(t.String({ maxLength: 2000 })),
})
