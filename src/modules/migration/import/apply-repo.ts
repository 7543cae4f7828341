// The set-based steps of an import, in dependency order: users, topics, posts,
// comments, likes, connections. Each step reads its staging table, moves what it
// cannot place to stage_rejects (with the reason), inserts the rest with one
// statement per table (`on conflict do nothing`: rows carry the customer's ids, so a
// re-run matches instead of duplicating) and recounts the counters of the rows it
// touched from the truth, so they are exact whatever ran before.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../../../lib/db'

type Fragment = PendingQuery<Row[]>

/** Moves the staged rows matching `condition` (alias `s`) to the rejects; returns how many. */
async function rejectWhere(
	db: Db,
	table: string,
	reason: Fragment | string,
	condition: Fragment,
): Promise<number> {
	const rows = await db`
		with gone as (delete from ${db(table)} s where ${condition} returning s.line, s.raw)
		insert into stage_rejects (line, reason, raw) select line, ${reason}, raw from gone returning 1`
	return rows.length
}

/**
 * Later lines repeating a customer id: identical content is dropped (counted as
 * matched), different content is a reject naming the first line (the first wins).
 */
export async function settleDuplicates(db: Db, table: string, key: Fragment): Promise<number> {
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

export const duplicateKeys = (db: Db): Record<string, Fragment> => ({
	stage_users: db`s.user_unique_id`,
	stage_topics: db`s.external_id`,
	stage_posts: db`s.external_id`,
	stage_comments: db`s.external_id`,
	stage_likes: db`jsonb_build_array(s.user_unique_id, s.post_external_id, s.comment_external_id)::text`,
	stage_connections: db`jsonb_build_array(s.user_unique_id, s.target_user_unique_id)::text`,
})

const unknownUser = (db: Db, c: number, column: Fragment) => db`
	not exists (select 1 from users u where u.community_id = ${c} and u.user_unique_id = ${column})`

const targetTables: Record<string, string[]> = {
	user: ['users'],
	topic: ['topics'],
	post: ['posts', 'post_topics'],
	comment: ['comments'],
	like: ['post_likes', 'comment_likes'],
	connection: ['connections'],
}

/** Fresh statistics for the tables a step filled (autovacuum would come too late for the next step's joins). */
export async function analyzeTarget(db: Db, type: string): Promise<void> {
	for (const table of targetTables[type] ?? []) await db`analyze ${db(table)}`
}

export interface StepResult {
	imported: number
	matched: number
}

async function countOf(db: Db, table: string): Promise<number> {
	const [row] = await db`select count(*)::int as n from ${db(table)}`
	return row?.n as number
}

export async function importUsers(db: Db, c: number, now: number): Promise<StepResult> {
	const staged = await countOf(db, 'stage_users')
	const [row] = await db`
		with ins as (
			insert into users (uuid, community_id, user_unique_id, name, image_url, is_guest, created_at)
			select gen_random_uuid(), ${c}, s.user_unique_id, s.name, coalesce(s.image_url, ''),
				coalesce(s.is_guest, false), to_timestamp(coalesce(s.created_at, ${now}) / 1000.0)
			from stage_users s
			on conflict do nothing returning 1)
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

export async function importPosts(db: Db, c: number): Promise<StepResult> {
	await rejectWhere(
		db,
		'stage_posts',
		'unknown user_unique_id',
		unknownUser(db, c, db`s.user_unique_id`),
	)
	await rejectWhere(
		db,
		'stage_posts',
		'unknown topic in topic_external_ids',
		db`exists (select 1 from jsonb_array_elements_text(coalesce(s.topic_external_ids, '[]')) e(x)
			where not exists (select 1 from topics t where t.community_id = ${c} and t.external_id = e.x))`,
	)
	const staged = await countOf(db, 'stage_posts')
	// Ids are time-ordered by the post's own created_at, as if written then.
	const [row] = await db`
		with ins as (
			insert into posts (id, community_id, user_id, heading, text, attachments, visibility, created_at, updated_at, external_id)
			select lpad(to_hex(s.created_at / 1000), 8, '0') || substr(md5(random()::text || s.line), 1, 16),
				${c}, u.id, coalesce(s.heading, ''), s.text, coalesce(s.attachments, '[]'),
				coalesce(s.visibility, 'public'), s.created_at, s.created_at, s.external_id
			from stage_posts s join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
			on conflict do nothing returning id, external_id),
		links as (
			insert into post_topics (post_id, topic_id)
			select ins.id, t.id from ins
			join stage_posts s on s.external_id = ins.external_id
			cross join lateral jsonb_array_elements_text(coalesce(s.topic_external_ids, '[]')) e(x)
			join topics t on t.community_id = ${c} and t.external_id = e.x
			on conflict do nothing)
		select count(*)::int as n from ins`
	const imported = row?.n as number
	return { imported, matched: staged - imported }
}

/** Comments in rounds (roots, then replies whose parent now exists); counters recounted for what changed. */
export async function importComments(db: Db, c: number): Promise<StepResult> {
	await rejectWhere(
		db,
		'stage_comments',
		'unknown user_unique_id',
		unknownUser(db, c, db`s.user_unique_id`),
	)
	await rejectWhere(
		db,
		'stage_comments',
		'unknown post_external_id',
		db`not exists (select 1 from posts p where p.community_id = ${c} and p.external_id = s.post_external_id)`,
	)
	await db`truncate touched_posts, touched_comments`
	let imported = 0
	let matched = 0
	for (;;) {
		const [row] = await db`
			with ins as (
				insert into comments (id, community_id, post_id, user_id, parent_id, level, text, created_at, updated_at, external_id)
				select lpad(to_hex(s.created_at / 1000), 8, '0') || substr(md5(random()::text || s.line), 1, 16),
					${c}, p.id, u.id, par.id, coalesce(par.level + 1, 1), s.text, s.created_at, s.created_at, s.external_id
				from stage_comments s
				join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
				join posts p on p.community_id = ${c} and p.external_id = s.post_external_id
				left join comments par on par.community_id = ${c} and par.external_id = s.parent_external_id
				where s.parent_external_id is null or par.post_id = p.id
				on conflict do nothing returning post_id, parent_id),
			posts_touched as (insert into touched_posts select distinct post_id from ins),
			parents_touched as (insert into touched_comments select distinct parent_id from ins where parent_id is not null)
			select count(*)::int as n from ins`
		const placed = await db`
			delete from stage_comments s using comments k
			where k.community_id = ${c} and k.external_id = s.external_id returning 1`
		imported += row?.n as number
		matched += placed.length - (row?.n as number)
		if (placed.length === 0) break
	}
	await rejectWhere(
		db,
		'stage_comments',
		'unknown parent_external_id',
		db`not exists (select 1 from comments k where k.community_id = ${c} and k.external_id = s.parent_external_id)`,
	)
	await rejectWhere(db, 'stage_comments', 'parent comment belongs to another post', db`true`)
	await recountComments(db)
	return { imported, matched }
}

/** comments_count of the touched posts (every live comment) and comments (live direct replies). */
async function recountComments(db: Db): Promise<void> {
	await db`
		update posts p set comments_count = x.n
		from (select k.post_id, count(*) filter (where not k.is_deleted)::int as n from comments k
			where k.post_id in (select id from touched_posts) group by k.post_id) x
		where p.id = x.post_id and p.comments_count <> x.n`
	await db`
		update comments p set comments_count = x.n
		from (select k.parent_id, count(*) filter (where not k.is_deleted)::int as n from comments k
			where k.parent_id in (select id from touched_comments) group by k.parent_id) x
		where p.id = x.parent_id and p.comments_count <> x.n`
}

export async function importLikes(db: Db, c: number): Promise<StepResult> {
	await rejectWhere(
		db,
		'stage_likes',
		'unknown user_unique_id',
		unknownUser(db, c, db`s.user_unique_id`),
	)
	await rejectWhere(
		db,
		'stage_likes',
		'unknown post_external_id',
		db`s.post_external_id is not null and not exists (
			select 1 from posts p where p.community_id = ${c} and p.external_id = s.post_external_id)`,
	)
	await rejectWhere(
		db,
		'stage_likes',
		'unknown comment_external_id',
		db`s.comment_external_id is not null and not exists (
			select 1 from comments k where k.community_id = ${c} and k.external_id = s.comment_external_id)`,
	)
	await db`truncate touched_posts, touched_comments`
	const staged = await countOf(db, 'stage_likes')
	// A like without created_at is dated with what it likes (history, not today).
	const [row] = await db`
		with post_ins as (
			insert into post_likes (post_id, user_id, created_at)
			select p.id, u.id, coalesce(s.created_at, p.created_at)
			from stage_likes s
			join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
			join posts p on p.community_id = ${c} and p.external_id = s.post_external_id
			on conflict do nothing returning post_id),
		comment_ins as (
			insert into comment_likes (comment_id, user_id, created_at)
			select k.id, u.id, coalesce(s.created_at, k.created_at)
			from stage_likes s
			join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
			join comments k on k.community_id = ${c} and k.external_id = s.comment_external_id
			on conflict do nothing returning comment_id),
		posts_touched as (insert into touched_posts select distinct post_id from post_ins),
		comments_touched as (insert into touched_comments select distinct comment_id from comment_ins)
		select (select count(*) from post_ins)::int + (select count(*) from comment_ins)::int as n`
	await db`
		update posts p set likes_count = x.n
		from (select l.post_id, count(*)::int as n from post_likes l
			where l.post_id in (select id from touched_posts) group by l.post_id) x
		where p.id = x.post_id and p.likes_count <> x.n`
	await db`
		update comments k set likes_count = x.n
		from (select l.comment_id, count(*)::int as n from comment_likes l
			where l.comment_id in (select id from touched_comments) group by l.comment_id) x
		where k.id = x.comment_id and k.likes_count <> x.n`
	const imported = row?.n as number
	return { imported, matched: staged - imported }
}

/** A two_way connection is two rows (both directions), a one_way one (follower → followed). */
export async function importConnections(db: Db, c: number, now: number): Promise<StepResult> {
	await rejectWhere(
		db,
		'stage_connections',
		'unknown user_unique_id or target_user_unique_id',
		db`${unknownUser(db, c, db`s.user_unique_id`)} or ${unknownUser(db, c, db`s.target_user_unique_id`)}`,
	)
	const staged = await countOf(db, 'stage_connections')
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
			on conflict do nothing returning user_id, connection_id)
		select count(*)::int as n from pairs join ins on ins.user_id = pairs.a and ins.connection_id = pairs.b`
	const imported = row?.n as number
	return { imported, matched: staged - imported }
}
