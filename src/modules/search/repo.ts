// SQL of search (docs/search.md): posts by their search vector (migrations/0100), members
// by the trigram index on their names. Every post result passes the visibility rules'
// one home (lib/visibility.ts); a member blocked either way is never listed.
import type postgres from 'postgres'
import type { Db } from '../../lib/db'
import { blockedBetween } from '../../lib/sql-rules'
import { mayViewSql } from '../../lib/visibility'
import type { Viewer } from '../../timelines'
import { type UserRow, userColumns } from '../users/repo'

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
			tx`select set_config('plan_cache_mode', 'force_custom_plan', true),
				set_config('pg_trgm.word_similarity_threshold', ${String(TYPO_THRESHOLD)}, true)`,
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

/** A user row with whether the searcher is connected to them. */
export type FoundMember = UserRow & { connected: boolean }

/**
 * Word similarity a typo still reaches: one letter wrong in a short name leaves half of
 * its trigrams (pg_trgm's default threshold, 0.6, would miss it).
 */
const TYPO_THRESHOLD = 0.45

export interface MemberSearch {
	communityId: number
	searcherId: number
	/** what was typed (empty: everyone) */
	search: string
	/** connections and CMs before the rest (the mention list) */
	connectionsFirst: boolean
	/** only the members seated in this room (a secret room's mention list) */
	seatedIn?: string
	limit: number
	offset: number
}

/**
 * Members whose name starts with what was typed, or has a word a typo away, never the
 * searcher, the owner, a deleted member or anyone blocked either way. Order: (for the
 * mention list) the searcher's connections and the CMs, then the names that start with
 * it, in name order, then the nearest other names. Each part is its own small query
 * that stops after the page: connections and CMs are few, the prefix walks the names
 * in index order (users_name_prefix), the typo fallback — asked only when the other two
 * do not fill the page — ranks the names the trigram index finds close (users_name_trgm).
 */
export async function searchMembers(db: postgres.Sql, q: MemberSearch): Promise<FoundMember[]> {
	const typed = q.search.trim().toLowerCase()
	const connected = db`exists (select 1 from connections cn
		where cn.user_id = ${q.searcherId} and cn.connection_id = u.id)`
	const columns = db`${db(userColumns.map((c) => `u.${c}`))}, ${connected} as connected`
	// the owner is the dashboard's login, not a member one mentions
	const visible = db`u.community_id = ${q.communityId} and not u.is_deleted and u.role <> 'owner'
		and u.id <> ${q.searcherId}
		and not ${blockedBetween(db, q.searcherId, db`u.id`)}
		${
			q.seatedIn === undefined
				? db``
				: db`and exists (select 1 from chatroom_participants sp
					where sp.chatroom_id = ${q.seatedIn} and sp.user_id = u.id)`
		}`
	const need = q.offset + q.limit
	const name = db`(u.name_search collate "C")`
	const prefix = `${typed.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
	const starts = typed ? db`and ${name} like plaza_unaccent(${prefix})` : db``
	const words = db`lower(plaza_unaccent(${typed}))`
	const close = typed
		? db`and (${name} like plaza_unaccent(${prefix}) or ${words} <% u.name_search)`
		: db``
	return customPlanned(db, async (tx) => {
		const [firsts, prefixed] = await Promise.all([
			q.connectionsFirst
				? tx<FoundMember[]>`
					select ${columns} from users u
					where u.id in (
							select cn.connection_id from connections cn where cn.user_id = ${q.searcherId}
							union all
							select cm.id from users cm
							where cm.community_id = ${q.communityId} and cm.role <> 'member')
						and ${visible} ${close}
					order by ${typed ? tx`(${name} like plaza_unaccent(${prefix})) desc, word_similarity(${words}, u.name_search) desc,` : tx``}
						${name}, u.id
					limit ${need}`
				: [],
			tx<FoundMember[]>`
				select ${columns} from users u where ${visible} ${starts}
				order by ${name}, u.id limit ${2 * need}`,
		])
		const found = merged(firsts, prefixed)
		if (typed && found.length < need)
			found.push(
				...merged(
					found,
					await tx<FoundMember[]>`
						select ${columns} from users u
						where ${visible} and ${words} <% u.name_search
						order by word_similarity(${words}, u.name_search) desc, ${name}, u.id
						limit ${need + found.length}`,
				).slice(found.length),
			)
		return found.slice(q.offset, need)
	})
}

/** `first` then the rows of `then` it does not hold, in their order. */
function merged(first: FoundMember[], then: FoundMember[]): FoundMember[] {
	const seen = new Set(first.map((u) => u.id))
	return [...first, ...then.filter((u) => !seen.has(u.id))]
}
