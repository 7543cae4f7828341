// The set-based steps of an import for users, topics and connections, and what every
// step shares (posts, comments and likes are in content-repo.ts). Each step reads its
// staging table, moves what it cannot place to stage_rejects (with the reason), and
// inserts the rest with one statement per table (`on conflict do nothing`: rows carry
// the customer's ids, so a re-run matches instead of duplicating).
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../lib/db'
import { markFollowed } from '../modules/connections/repo'

export type Fragment = PendingQuery<Row[]>

/** Moves the staged rows matching `condition` (alias `s`) to the rejects; returns how many. */
export async function rejectWhere(
	db: Db,
	table: string,
	reason: Fragment | string,
	condition: Fragment,
): Promise<number> {
	const [row] = await db`
		with gone as (delete from ${db(table)} s where ${condition} returning s.line, s.raw),
		moved as (insert into stage_rejects (line, reason, raw) select line, ${reason}, raw from gone returning 1)
		select count(*)::int as n from moved`
	return row?.n as number
}

/**
 * Later lines repeating a customer id: identical content is dropped (counted as
 * matched), different content is a reject naming the first line (the first wins).
 */
export async function settleDuplicates(
	db: Db,
	table: string,
	{ key, columns }: DuplicateKey,
): Promise<number> {
	// Most files repeat nothing: one grouping pass says so before the ranking below.
	const repeated =
		await db`select 1 from ${db(table)} s group by ${columns} having count(*) > 1 limit 1`
	if (repeated.length === 0) return 0
	const [row] = await db`
		with dup_keys as (select ${key} as k from ${db(table)} s group by 1 having count(*) > 1),
		ranked as (
			select s.line, md5((to_jsonb(s) - 'line' - 'raw')::text) as digest,
				first_value(s.line) over w as first_line,
				first_value(md5((to_jsonb(s) - 'line' - 'raw')::text)) over w as first_digest
			from ${db(table)} s join dup_keys d on d.k = ${key}
			window w as (partition by ${key} order by s.line)),
		dropped as (
			delete from ${db(table)} s using ranked r where s.line = r.line and r.line <> r.first_line
			returning s.line, s.raw, r.digest = r.first_digest as same, r.first_line),
		rejected as (
			insert into stage_rejects (line, reason, raw)
			select line, 'duplicate id with different content (first at line ' || first_line || ')', raw
			from dropped where not same returning 1)
		select (select count(*) from dropped where same)::int as same`
	return (row?.same as number) ?? 0
}

/**
 * A staged row's customer id: `key` as one value (the ranking joins and partitions on
 * it), `columns` as the columns themselves (grouping on them, nulls included, cost 25%
 * less than building the one text value for each of 450,000 likes).
 */
export interface DuplicateKey {
	key: Fragment
	columns: Fragment
}

const same = (key: Fragment): DuplicateKey => ({ key, columns: key })

export const duplicateKeys = (db: Db): Record<string, DuplicateKey> => ({
	stage_users: same(db`s.user_unique_id`),
	stage_topics: same(db`s.external_id`),
	stage_posts: same(db`s.external_id`),
	stage_comments: same(db`s.external_id`),
	// One text value (nulls included), so the ranking can join and partition on it.
	stage_likes: {
		key: db`concat_ws(chr(1), s.user_unique_id, s.post_external_id, chr(2), s.comment_external_id)`,
		columns: db`s.user_unique_id, s.post_external_id, s.comment_external_id`,
	},
	stage_connections: {
		key: db`concat_ws(chr(1), s.user_unique_id, s.target_user_unique_id)`,
		columns: db`s.user_unique_id, s.target_user_unique_id`,
	},
})

export const unknownUser = (db: Db, c: number, column: Fragment) => db`
	not exists (select 1 from users u where u.community_id = ${c} and u.user_unique_id = ${column})`

/** The tables a step fills, with the columns later steps join or filter on. */
const targetTables: Record<string, [string, string[]][]> = {
	user: [['users', ['id', 'community_id', 'user_unique_id']]],
	topic: [['topics', ['id', 'community_id', 'external_id']]],
	post: [
		['posts', ['id', 'community_id', 'external_id', 'user_id']],
		['post_topics', ['post_id', 'topic_id']],
	],
	comment: [['comments', ['id', 'community_id', 'external_id', 'post_id', 'parent_id']]],
	like: [
		['post_likes', ['post_id', 'user_id']],
		['comment_likes', ['comment_id', 'user_id']],
	],
	connection: [['connections', ['user_id', 'connection_id']]],
}

/**
 * Fresh statistics for the tables a step filled (autovacuum would come too late for the
 * next step's joins), of the join columns only: texts cost the most to analyse.
 */
export async function analyzeTarget(db: Db, type: string): Promise<void> {
	for (const [table, columns] of targetTables[type] ?? [])
		await db`analyze ${db(table)} (${db(columns)})`
}

export interface StepResult {
	imported: number
	matched: number
}

/**
 * Whether this connection may turn off the per-row foreign-key triggers for a step
 * (`session_replication_role = replica`: superuser, or SET granted on the parameter).
 */
export async function mayDeferRowChecks(db: Db): Promise<boolean> {
	const [row] = await db`
		select current_setting('is_superuser')::boolean
			or has_parameter_privilege('session_replication_role', 'SET') as may`
	return row?.may === true
}

/**
 * For the rest of the step's transaction: no per-row foreign-key checks (they cost more
 * than the insert itself). The steps resolve every reference with a join, so the rows
 * they point at exist; what the check would also do is hold them until commit, and
 * `lockReferenced` does that for the set at once.
 */
export async function deferRowChecks(db: Db, c: number): Promise<void> {
	await db`set local session_replication_role = replica`
	await db`select 1 from communities where id = ${c} for key share`
}

/**
 * FOR KEY SHARE on the rows of `table` matching `condition` (alias `r`), in one
 * statement: nobody deletes them or changes their key until the step commits — the
 * lock the skipped foreign-key checks would have taken one row at a time.
 */
export async function lockReferenced(db: Db, table: string, condition: Fragment): Promise<void> {
	await db`select count(*) from (select 1 from ${db(table)} r where ${condition} for key share) x`
}

export async function countOf(db: Db, table: string): Promise<number> {
	const [row] = await db`select count(*)::int as n from ${db(table)}`
	return row?.n as number
}

/** Rows in plaza a staged row (alias `s`) matches: the tables joined, and how. */
export interface Match {
	using: Fragment
	where: Fragment
}

/**
 * The staged rows of `table` that match rows in plaza leave the stage; returns how
 * many. Counted first: when every staged row matches (a re-run), emptying the table
 * costs nothing, where deleting 450,000 likes one by one took 0.5 s.
 */
export async function dropMatched(db: Db, table: string, matches: Match[]): Promise<number> {
	const counts: number[] = []
	for (const m of matches) {
		const [row] =
			await db`select count(*)::int as n from ${db(table)} s, ${m.using} where ${m.where}`
		counts.push(row?.n as number)
	}
	const n = counts.reduce((a, b) => a + b, 0)
	if (n === 0) return 0
	if (n === (await countOf(db, table))) await db`truncate ${db(table)}`
	else
		for (const [i, m] of matches.entries())
			if ((counts[i] as number) > 0)
				await db`delete from ${db(table)} s using ${m.using} where ${m.where}`
	return n
}

export async function importUsers(
	db: Db,
	c: number,
	now: number,
	deferChecks: boolean,
): Promise<StepResult> {
	if (deferChecks) await deferRowChecks(db, c)
	const staged = await countOf(db, 'stage_users')
	// A re-run's users all exist: they leave the stage before the insert tries each.
	await dropMatched(db, 'stage_users', [
		{
			using: db`users u`,
			where: db`u.community_id = ${c} and u.user_unique_id = s.user_unique_id`,
		},
	])
	const [row] = await db`
		with ins as (
			insert into users (uuid, community_id, user_unique_id, name, image_url, is_guest, created_at)
			select gen_random_uuid(), ${c}, s.user_unique_id, s.name, coalesce(s.image_url, ''),
				coalesce(s.is_guest, false), to_timestamp(coalesce(s.created_at, ${now}) / 1000.0)
			from stage_users s
			on conflict (community_id, user_unique_id) do nothing returning 1)
		select count(*)::int as n from ins`
	const imported = row?.n as number
	return { imported, matched: staged - imported }
}

/** Topics in rounds: roots first, then children whose parent now exists, until a round places nothing. */
export async function importTopics(db: Db, c: number, now: number): Promise<StepResult> {
	let imported = 0
	let matched = 0
	for (;;) {
		const [row] = await db`
			with ins as (
				insert into topics (id, community_id, name, priority, parent_id, level, is_enabled, external_id, created_at, updated_at)
				select plaza_new_id(), ${c}, s.name, coalesce(s.priority, 0), p.id,
					case when p.id is null then 0 else p.level + 1 end, coalesce(s.is_enabled, true),
					s.external_id, ${now}, ${now}
				from stage_topics s
				left join topics p on p.community_id = ${c} and p.external_id = s.parent_external_id
				where s.parent_external_id is null or p.id is not null
				on conflict do nothing returning 1)
			select count(*)::int as n from ins`
		const placed = await db`
			delete from stage_topics s using topics t
			where t.community_id = ${c} and t.external_id = s.external_id returning 1`
		imported += row?.n as number
		matched += placed.length - (row?.n as number)
		if (placed.length === 0) break
	}
	await rejectWhere(
		db,
		'stage_topics',
		'unknown parent_external_id',
		db`s.parent_external_id is not null and not exists (
			select 1 from topics t where t.community_id = ${c} and t.external_id = s.parent_external_id)`,
	)
	await rejectWhere(
		db,
		'stage_topics',
		'a topic with this name already exists under the same parent',
		db`true`,
	)
	return { imported, matched }
}

/** A two_way connection is two rows (both directions), a one_way one (follower → followed). */
export async function importConnections(
	db: Db,
	c: number,
	now: number,
	deferChecks: boolean,
): Promise<StepResult> {
	await rejectWhere(
		db,
		'stage_connections',
		'unknown user_unique_id or target_user_unique_id',
		db`${unknownUser(db, c, db`s.user_unique_id`)} or ${unknownUser(db, c, db`s.target_user_unique_id`)}`,
	)
	const staged = await countOf(db, 'stage_connections')
	if (staged === 0) return { imported: 0, matched: 0 }
	if (deferChecks) {
		await deferRowChecks(db, c)
		await lockReferenced(
			db,
			'users',
			db`r.community_id = ${c} and r.user_unique_id in (
				select user_unique_id from stage_connections union select target_user_unique_id from stage_connections)`,
		)
	}
	const [row] = await db`
		with pairs as (
			select u.id as a, v.id as b, coalesce(s.connection_type, 'two_way') as kind
			from stage_connections s
			join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
			join users v on v.community_id = ${c} and v.user_unique_id = s.target_user_unique_id),
		wanted as (
			select a as user_id, b as connection_id, kind from pairs
			union select b, a, kind from pairs where kind = 'two_way'),
		ins as (
			insert into connections (community_id, user_id, connection_id, connection_type, created_at)
			select ${c}, user_id, connection_id, kind, ${now} from wanted
			on conflict do nothing returning user_id, connection_id),
		${markFollowed(db, c, db`select connection_id from ins`)}
		select count(*)::int as n from pairs join ins on ins.user_id = pairs.a and ins.connection_id = pairs.b`
	const imported = row?.n as number
	return { imported, matched: staged - imported }
}
