// Id lists in a query or body (`topic_ids`, `widget_ids`, `parent_ids`): a comma list,
// a JSON array of strings, or a parameter repeated (already an array), parsed one way
// for every route; a malformed list is a 400 naming its field.
import { badRequest } from './errors'

export interface IdListOptions {
	/** At most this many distinct ids (400 beyond). Default 50. */
	max?: number
	/** Keep the empty id '' (topics' `parent_ids`: '' names the root). Default: dropped. */
	keepEmpty?: boolean
}

/** `a,b`, `["a","b"]` or a repeated parameter → distinct ids, in order. */
export function parseIdList(
	name: string,
	raw: string | string[] | undefined,
	options: IdListOptions = {},
): string[] {
	if (raw === undefined) return []
	// The common form, a plain comma list, without the cleaning below (a feed read parses
	// its query twice: for its early read and for the handler).
	if (typeof raw === 'string' && PLAIN_LIST.test(raw))
		return distinct(name, raw.split(','), options)
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
	return distinct(name, items.map(clean), options)
}

/** Ids without quotes, brackets or spaces, comma-separated. */
const PLAIN_LIST = /^[^"[\]\s]*$/

function distinct(name: string, items: string[], { max = 50, keepEmpty = false }: IdListOptions) {
	// indexOf, not a Set: lists are short, and a Set per read showed in the profile.
	const ids = items.filter((id, i) => (keepEmpty || id !== '') && items.indexOf(id) === i)
	if (ids.length > max) throw badRequest(`${name} may name at most ${max} ids`)
	return ids
}
