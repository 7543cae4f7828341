// SQL of post search (docs/search.md): posts by their search vector (migrations/0100).
// Every result passes the visibility rules' one home (lib/visibility.ts). Members are
// searched in members-repo.ts.
import type { Db } from '../../lib/db'
import { mayViewSql } from '../../lib/visibility'
import type { Viewer } from '../../timelines'

/**
 * Matches are ranked in blocks of this many, newest block first: a common word matches
 * a large share of a community's posts, and ranking them all would cost a visit to every
 * match. A page reads only the blocks it reaches — the newest matches, found through
 * the GIN index for a rare word or by walking the community's time index (posts_feed)
 * for a common one (word-frequency.ts chooses) — and paging stays stable (a block's
 * order never depends on the page asked).
 */
export const RANK_BLOCK = 200

/**
 * Within a block, relevance (ts_rank_cd, normalized to 0..1 by rank/(rank+1)) blended
 * with recency: a post's recency part halves every RECENCY_HALF_LIFE_DAYS.
 */
const RECENCY_HALF_LIFE_DAYS = 30
const RELEVANCE_WEIGHT = 0.7

export interface PostSearch {
	viewer: Viewer
	search: string
	limit: number
	offset: number
	/** the time recency is measured from */
	now: number
}

/** Lexemes of posts.search and the share of posts holding each, from ANALYZE's statistics. */
export async function wordFrequencies(db: Db): Promise<Map<string, number>> {
	const rows = await db<{ word: string; share: number }[]>`
		select x.word, x.share::float8 as share
		from pg_stats s,
			unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as x(word, share)
		where s.schemaname = current_schema() and s.tablename = 'posts' and s.attname = 'search'
			and x.word is not null`
	return new Map(rows.map((r) => [r.word, r.share]))
}

/**
 * Ids of the posts matching `search` that the viewer may see, best first, one page of
 * them. `walk`: find the matches by walking the community's posts newest first with the
 * match as a filter (ts_match_vq, the function behind `@@`, which no index serves: the
 * plan walks posts_feed whatever the statement's parameters); otherwise through the GIN
 * index (`@@`). Both are plain prepared statements, their plans cached.
 */
export async function searchPostIds(
	db: Db,
	{ viewer, search, limit, offset, now }: PostSearch,
	walk: boolean,
): Promise<string[]> {
	const halfLifeMs = RECENCY_HALF_LIFE_DAYS * 86_400_000
	const reach = (Math.floor((offset + limit - 1) / RANK_BLOCK) + 1) * RANK_BLOCK
	const query = db`websearch_to_tsquery('simple', plaza_unaccent(${search}))`
	const matches = walk ? db`ts_match_vq(p.search, ${query})` : db`p.search @@ ${query}`
	const rows = await db<{ id: string }[]>`
		select h.id from (
			select m.*, (row_number() over (order by m.created_at desc, m.id desc) - 1) / ${RANK_BLOCK} as block
			from (
				select p.id, p.created_at, p.search from posts p
				where p.community_id = ${viewer.communityId} and not p.is_deleted and ${matches}
					and ${mayViewSql(db, 'p', viewer)}
				order by p.created_at desc, p.id desc
				limit ${reach}) m) h
		order by h.block,
			${RELEVANCE_WEIGHT} * ts_rank_cd(h.search, ${query}, 32)
			+ ${1 - RELEVANCE_WEIGHT} * power(0.5, greatest(${now} - h.created_at, 0)::float8 / ${halfLifeMs}) desc,
			h.created_at desc, h.id desc
		limit ${limit} offset ${offset}`
	return rows.map((r) => r.id)
}
