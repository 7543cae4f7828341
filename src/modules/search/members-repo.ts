// SQL of member and mention search (docs/search.md): a name prefix walked in index order
// (users_name_prefix, migration 0130) and stopped at the page, the searcher's
// connections and CMs as their own small query ahead of it (the mention list), and the
// trigram index only as the typo fallback when the prefix finds too few. A member
// blocked either way is never listed (the rule's one home, lib/sql-rules blockedBetween).
import type postgres from 'postgres'
import type { Db } from '../../lib/db'
import { blockedBetween } from '../../lib/sql-rules'
import { type UserRow, userColumns } from '../users/repo'

/** A user row with whether the searcher is connected to them. */
export type FoundMember = UserRow & { connected: boolean }

/**
 * Word similarity a typo still reaches: one letter wrong in a short name leaves half of
 * its trigrams (pg_trgm's default threshold, 0.6, would miss it).
 */
const TYPO_THRESHOLD = 0.45

/**
 * The typo fallback ranks at most this many of the names the trigram index finds: a
 * typo of a common name (`margeret`) reaches thousands, and ranking them all costs a
 * similarity per name. The best of the first TYPO_CANDIDATES found is served.
 */
export const TYPO_CANDIDATES = 200

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
 * Members of the community whose name starts with `search`, or, when those are too few
 * for the page, with a word `search` is close to (word similarity: a word's prefix, or a
 * typo); never the searcher, the owner, nor anyone blocked either way. In order: (the
 * mention list) connections and CMs; then name prefixes by name; then typo matches, most
 * similar first.
 */
export async function searchMembers(db: postgres.Sql, q: MemberSearch): Promise<FoundMember[]> {
	const typed = q.search.trim().toLowerCase()
	const want = q.offset + q.limit
	// the two groups exclude each other: both are asked at once, each for a whole reach
	const [close, prefixed] = await Promise.all([
		q.connectionsFirst ? closeMatches(db, q, typed, want) : [],
		prefixMatches(db, q, typed, want),
	])
	const found = [...close, ...prefixed]
	if (found.length < want && typed)
		found.push(...(await typoMatches(db, q, typed, want - found.length)))
	return found.slice(q.offset, want)
}

const columns = (db: Db, q: MemberSearch) =>
	db`${userColumns(db, 'u')}, ${connectedTo(db, q)} as connected`

const connectedTo = (db: Db, q: MemberSearch) => db`exists (select 1 from connections cn
	where cn.community_id = ${q.communityId} and cn.user_id = ${q.searcherId} and cn.connection_id = u.id)`

/** The searcher's connections and the CMs (the mention list's first group). */
const close = (db: Db, q: MemberSearch) => db`(${connectedTo(db, q)} or u.role = 'cm')`

/** Who of the community (the statement names it) may be listed at all, beside the name match. */
function listable(db: Db, q: MemberSearch) {
	// the owner is the dashboard's login, not a member one mentions
	return db`not u.is_deleted and u.role <> 'owner'
		and u.id <> ${q.searcherId}
		and not ${blockedBetween(db, q.searcherId, db`u.id`, q.communityId)}
		${
			q.seatedIn === undefined
				? db``
				: db`and exists (select 1 from chatroom_participants sp
					where sp.community_id = ${q.communityId} and sp.chatroom_id = ${q.seatedIn}
						and sp.user_id = u.id)`
		}`
}

/** What was typed, folded as users.name_search is (lower-cased, unaccented). */
const folded = (db: Db, typed: string) => db`lower(plaza_unaccent(${typed}))`

/** The name starts with what was typed (true for an empty search). */
const startsWith = (db: Db, typed: string) => db`starts_with(u.name_search, ${folded(db, typed)})`

/**
 * Connections and CMs whose name starts with, or has a word close to, what was typed:
 * a small set (read from the connections' key and the CMs' index), ranked whole.
 */
function closeMatches(db: Db, q: MemberSearch, typed: string, limit: number) {
	const similarity = db`word_similarity(${folded(db, typed)}, u.name_search)`
	return db<FoundMember[]>`
		select ${columns(db, q)} from users u
		where u.community_id = ${q.communityId} and u.id in (
				select cn.connection_id from connections cn
				where cn.community_id = ${q.communityId} and cn.user_id = ${q.searcherId}
				union all
				select c.id from users c
				where c.community_id = ${q.communityId} and c.role = 'cm' and not c.is_deleted)
			and ${listable(db, q)}
			and (${startsWith(db, typed)} or ${similarity} >= ${TYPO_THRESHOLD})
		order by ${startsWith(db, typed)} desc, ${similarity} desc, (u.name_search collate "C"), u.id
		limit ${limit}`
}

/**
 * Names starting with what was typed, by name: one range of users_name_prefix (byte
 * order), walked in order and stopped at the page. The range's end is the prefix
 * followed by the last code point (U+10FFFF); starts_with keeps it exact.
 */
function prefixMatches(db: Db, q: MemberSearch, typed: string, limit: number) {
	const name = db`(u.name_search collate "C")`
	return db<FoundMember[]>`
		select ${columns(db, q)} from users u
		where u.community_id = ${q.communityId} and ${listable(db, q)}
			and ${name} >= ${folded(db, typed)} and ${name} < ${folded(db, typed)} || chr(1114111)
			and ${startsWith(db, typed)}
			${q.connectionsFirst ? db`and not ${close(db, q)}` : db``}
		order by ${name}, u.id
		limit ${limit}`
}

/**
 * Names with a word close to what was typed but not starting with it: the trigram
 * index (`<%`, at TYPO_THRESHOLD for this transaction only), the best of the first
 * TYPO_CANDIDATES found.
 */
function typoMatches(db: postgres.Sql, q: MemberSearch, typed: string, limit: number) {
	return db.begin(async (tx) => {
		const words = folded(tx, typed)
		// SET LOCAL, not set_config(): on Citus the match runs on a worker, and the
		// coordinator passes a SET LOCAL on only when told to (inert on plain Postgres).
		const [, , rows] = await Promise.all([
			tx`set local citus.propagate_set_commands = 'local'`,
			tx.unsafe(`set local pg_trgm.word_similarity_threshold = ${Number(TYPO_THRESHOLD)}`),
			tx<FoundMember[]>`
				select ${columns(tx, q)} from (
					select u.* from users u
					where u.community_id = ${q.communityId} and ${listable(tx, q)} and ${words} <% u.name_search
						and not ${startsWith(tx, typed)}
						${q.connectionsFirst ? tx`and not ${close(tx, q)}` : tx``}
					limit ${TYPO_CANDIDATES}) u
				order by word_similarity(${words}, u.name_search) desc, (u.name_search collate "C"), u.id
				limit ${limit}`,
		])
		return rows
	}) as Promise<FoundMember[]>
}
