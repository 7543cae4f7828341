// SQL of post search (docs/search.md): posts by their search vector (migrations/0100).
// Every result passes the visibility rules' one home (lib/visibility.ts). Members are
// searched in members-repo.ts.
import type postgres from 'postgres'
import type { Db } from '../../lib/db'
import { mayViewSql } from '../../lib/visibility'
import type { Viewer } from '../../timelines'

/**
 * Matches are ranked in blocks of this many, newest block first: a common word matches
 * a large share of a community's posts, and ranking them all would cost a visit to every
 * match. A page reads only the blocks it reaches — the newest matches, found through
 * the GIN index for a rare word or by walking the community's time index (posts_feed)
 * for a common one — and paging stays stable (a block's order never depends on the
 * page asked). The tsquery is written inline (no CTE) so the planner sees the words and
 * picks the path from the column's statistics.
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

/** Ids of the posts matching `search` that the viewer may see, best first, one page of them. */
export function searchPostIds(db: postgres.Sql, q: PostSearch): Promise<string[]> {
	return customPlanned(db, (tx) => postPage(tx, q))
}

/**
 * Runs `read` in a transaction planned for its own values: the path (GIN or time index)
 * depends on the words searched, and a prepared statement's generic plan (chosen after
 * five runs) would take one path for every word. The setting and the statement are sent
 * together, and last for this transaction only.
 */
async function customPlanned<T>(db: postgres.Sql, read: (tx: Db) => Promise<T>): Promise<T> {
	return (await db.begin(async (tx) => {
		const [, rows] = await Promise.all([
			tx`select set_config('plan_cache_mode', 'force_custom_plan', true)`,
			read(tx),
		])
		return rows
	})) as T
}

async function postPage(db: Db, { viewer, search, limit, offset, now }: PostSearch) {
	const halfLifeMs = RECENCY_HALF_LIFE_DAYS * 86_400_000
	const reach = (Math.floor((offset + limit - 1) / RANK_BLOCK) + 1) * RANK_BLOCK
	const query = db`websearch_to_tsquery('simple', plaza_unaccent(${search}))`
	const rows = await db<{ id: string }[]>`
		select h.id from (
			select m.*, (row_number() over (order by m.created_at desc, m.id desc) - 1) / ${RANK_BLOCK} as block
			from (
				select p.id, p.created_at, p.search from posts p
				where p.community_id = ${viewer.communityId} and not p.is_deleted and p.search @@ ${query}
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
