// Which path a post search takes (docs/search.md): a word in a large share of the posts
// is found fastest by walking the community's posts newest first until a page's blocks
// are full; a rarer one through the GIN index. The share is read from the statistics
// ANALYZE keeps on posts.search (the most common lexemes and their frequencies), held in
// memory and re-read every few minutes. Both paths answer the same rows: a wrong guess
// costs time, never a result.
import type { Db } from '../../lib/db'
import { wordFrequencies } from './repo'

/** A search whose words are together in at least this share of posts walks by time. */
export const WALK_SHARE = 0.02
const REFRESH_MS = 5 * 60_000

let known: { at: number; shares: Map<string, number> } | null = null
let loading: Promise<void> | null = null

function refresh(db: Db): Promise<void> {
	loading ??= wordFrequencies(db)
		.then((shares) => {
			known = { at: Date.now(), shares }
		})
		.finally(() => {
			loading = null
		})
	return loading
}

/**
 * The words of a search as the posts' vector holds them (lower-cased, accents off),
 * or null for a search with `or` or a negated word (those take the GIN path).
 */
export function searchWords(search: string): string[] | null {
	const words = search
		.normalize('NFD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.split(/\s+/)
		.filter((w) => w !== '')
	if (words.some((w) => w === 'or' || w.startsWith('-'))) return null
	return words.flatMap((w) => w.split(/[^\p{L}\p{N}]+/u)).filter((w) => w !== '')
}

/** Whether the search's words are common enough for the time walk (see WALK_SHARE). */
export async function walksByTime(db: Db, search: string): Promise<boolean> {
	if (!known) await refresh(db)
	else if (Date.now() - known.at > REFRESH_MS) void refresh(db).catch(() => {})
	const words = searchWords(search)
	if (!words?.length || !known) return false
	// words together: at most the share of the rarest, estimated as independent
	let share = 1
	for (const word of words) share *= known.shares.get(word) ?? 0
	return share >= WALK_SHARE
}
