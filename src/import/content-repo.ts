// Posts, comments and likes of an import (likes in likes-repo.ts) and their counters:
// the steps run.ts commits as one transaction, so the counters written with the rows are never seen half-done.
// Rows already in plaza (matched by the customer's ids) leave the stage first, so a
// re-run does no writes at all. New rows are inserted with their counters as the stage
// predicts them (the comments and likes staged for them) and the steps report to a
// CounterTally (counters.ts) what they predicted and placed; only when that does not
// prove the predictions exact does one UPDATE per table recount what this run touched,
// writing only the rows whose prediction was wrong (a reject, a child of a row that
// existed before): exact counters without rewriting every post.
// "New" is "inserted by this run": the inserting statements list their rows' ids in
// new_posts and new_comments (temporary tables), which later steps join.
// `on conflict` names the customer's id (the only key a concurrent writer can share):
// with no target every unique index is checked before each row, the random primary
// key too (0.3 s of the posts' 4 s at 300,000).
// Rows go in in the order of the indexes they fill most (ids are time-ordered, likes
// by what they like): each index grows at one end instead of everywhere at once, so
// its pages stay in memory on a database larger than its buffers. (At 1M records the
// indexes fit in memory: 300,000 posts by created_at either way or by external_id took
// the same time within the noise, 4.5–5.1 s; by author, 6.3 s.)
import type { Db } from '../lib/db'
import { topicDeltas } from '../modules/topics/repo'
import {
	countOf,
	deferRowChecks,
	dropMatched,
	lockReferenced,
	type Match,
	rejectWhere,
	type StepResult,
	unknownUser,
} from './apply-repo'
import type { CounterTally } from './counters'

const matchedComment = (db: Db, c: number): Match => ({
	using: db`comments k`,
	where: db`k.community_id = ${c} and k.external_id = s.external_id`,
})

export interface ContentMatched {
	post: number
	comment: number
	like: number
}

/**
 * Before the content steps: what exists already leaves the stage (counted as matched);
 * with row checks deferred, the rows the rest will point at are locked as a set.
 */
export async function prepareContent(
	db: Db,
	c: number,
	deferChecks: boolean,
): Promise<ContentMatched> {
	const post = await dropMatched(db, 'stage_posts', [
		{ using: db`posts p`, where: db`p.community_id = ${c} and p.external_id = s.external_id` },
	])
	const comment = await dropMatched(db, 'stage_comments', [matchedComment(db, c)])
	const like = await dropMatched(db, 'stage_likes', [
		{
			using: db`users u, posts p, post_likes l`,
			where: db`u.community_id = ${c} and u.user_unique_id = s.user_unique_id
				and p.community_id = ${c} and p.external_id = s.post_external_id
				and l.community_id = ${c} and l.post_id = p.id and l.user_id = u.id`,
		},
		{
			using: db`users u, comments k, comment_likes l`,
			where: db`u.community_id = ${c} and u.user_unique_id = s.user_unique_id
				and k.community_id = ${c} and k.external_id = s.comment_external_id
				and l.community_id = ${c} and l.comment_id = k.id and l.user_id = u.id`,
		},
	])
	await db`truncate touched_posts, touched_comments, new_posts, new_comments`
	if (deferChecks) {
		await deferRowChecks(db, c)
		// Locked before this transaction inserts anything: only rows that existed before.
		await lockReferenced(
			db,
			'users',
			db`r.community_id = ${c} and r.user_unique_id in (
				select user_unique_id from stage_posts union select user_unique_id from stage_comments
				union select user_unique_id from stage_likes)`,
		)
		await lockReferenced(
			db,
			'topics',
			db`r.community_id = ${c} and r.external_id in (
				select jsonb_array_elements_text(topic_external_ids) from stage_posts)`,
		)
		await lockReferenced(
			db,
			'posts',
			db`r.community_id = ${c} and r.external_id in (
				select post_external_id from stage_comments union select post_external_id from stage_likes)`,
		)
		await lockReferenced(
			db,
			'comments',
			db`r.community_id = ${c} and r.external_id in (
				select parent_external_id from stage_comments union select comment_external_id from stage_likes)`,
		)
	}
	return { post, comment, like }
}

/**
 * Posts with their topic links and predicted counters; the topics' post_count deltas of
 * the links this statement made (new posts are live), one row per topic.
 */
export async function importPosts(db: Db, c: number, tally: CounterTally): Promise<StepResult> {
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
		// The unknown ids are found once, as a set (a per-post anti-join against the
		// community's topics was planned as a scan of them for every post: 3 s at 300,000).
		db`s.topic_external_ids ?| array(
			select e.x from stage_posts p, jsonb_array_elements_text(coalesce(p.topic_external_ids, '[]')) e(x)
			except select t.external_id from topics t where t.community_id = ${c} and t.external_id is not null)`,
	)
	const staged = await countOf(db, 'stage_posts')
	if (staged === 0) return { imported: 0, matched: 0 }
	const [row] = await db`
		with ins as (
			insert into posts (id, community_id, user_id, heading, text, attachments, visibility,
				created_at, updated_at, external_id, likes_count, comments_count, topic_names)
			select ${timeOrderedId(db)},
				${c}, u.id, coalesce(s.heading, ''), s.text, coalesce(s.attachments, '[]'),
				coalesce(s.visibility, 'public'), s.created_at, s.created_at, s.external_id,
				coalesce(lk.n, 0), coalesce(cm.n, 0),
				-- the names its search vector holds (migrations/0100), as the links below make them
				coalesce((select string_agg(t.name, ' ' order by t.id)
					from jsonb_array_elements_text(coalesce(s.topic_external_ids, '[]')) e(x)
					join topics t on t.community_id = ${c} and t.external_id = e.x), '')
			from stage_posts s
			join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
			left join (select post_external_id as x, count(*)::int as n from stage_likes
				where post_external_id is not null group by 1) lk on lk.x = s.external_id
			left join (select post_external_id as x, count(*)::int as n from stage_comments group by 1) cm
				on cm.x = s.external_id
			order by s.created_at
			on conflict (community_id, external_id) where external_id is not null do nothing
			returning id, external_id, likes_count, comments_count),
		marked as (insert into new_posts select id from ins),
		links as (
			insert into post_topics (community_id, post_id, topic_id)
			select ${c}, ins.id, t.id from ins
			join stage_posts s on s.external_id = ins.external_id
			cross join lateral jsonb_array_elements_text(coalesce(s.topic_external_ids, '[]')) e(x)
			join topics t on t.community_id = ${c} and t.external_id = e.x
			on conflict do nothing returning topic_id),
		${topicDeltas(db, c, db`select topic_id from links`, 1)}
		select count(*)::int as n, coalesce(sum(likes_count), 0)::int as likes,
			coalesce(sum(comments_count), 0)::int as comments from ins`
	const imported = row?.n as number
	tally.predict('postLikes', row?.likes as number)
	tally.predict('postComments', row?.comments as number)
	return { imported, matched: staged - imported }
}

/**
 * A new row's id, time-ordered by the record's own `created_at` (alias `s`) as if
 * written then (lib/ids.ts): 8 hex digits of seconds, 16 random (two draws of 32 bits;
 * an md5 of random() cost three times as much).
 */
const timeOrderedId = (db: Db) => db`
	lpad(to_hex(s.created_at / 1000), 8, '0')
		|| lpad(to_hex((random() * 4294967296)::bigint), 8, '0')
		|| lpad(to_hex((random() * 4294967296)::bigint), 8, '0')`

/** Comments in rounds: roots, then replies whose parent now exists, until a round places nothing. */
export async function importComments(db: Db, c: number, tally: CounterTally): Promise<StepResult> {
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
	const staged = await countOf(db, 'stage_comments')
	if (staged === 0) return { imported: 0, matched: 0 }
	// Each round of replies deletes what it placed by customer id: one lookup, not a scan.
	await db`create index on stage_comments (external_id)`
	await db`analyze new_posts`
	// Likes staged per comment, counted once for every round.
	await db`
		create temp table comment_like_counts on commit drop as
		select comment_external_id as x, count(*)::int as n from stage_likes
		where comment_external_id is not null group by 1`
	let imported = 0
	for (;;) {
		// A parent's replies are still staged when it is placed (they need it first).
		const [row] = await db`
			with src as materialized (
				select ${timeOrderedId(db)} as id,
					p.id as post_id, u.id as user_id, par.id as parent_id, coalesce(par.level + 1, 1) as level,
					s.text, s.created_at, s.external_id, coalesce(lk.n, 0) as likes_count,
					coalesce(rp.n, 0) as comments_count,
					np.id is not null and (par.id is null or nc.id is not null) as under_new
				from stage_comments s
				join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
				join posts p on p.community_id = ${c} and p.external_id = s.post_external_id
				left join comments par on par.community_id = ${c} and par.external_id = s.parent_external_id
				left join new_posts np on np.id = p.id
				left join new_comments nc on nc.id = par.id
				left join comment_like_counts lk on lk.x = s.external_id
				left join (select parent_external_id as x, count(*)::int as n from stage_comments
					where parent_external_id is not null group by 1) rp on rp.x = s.external_id
				where s.parent_external_id is null or par.post_id = p.id
				order by s.created_at),
			ins as (
				insert into comments (id, community_id, post_id, user_id, parent_id, level, text,
					created_at, updated_at, external_id, likes_count, comments_count)
				select id, ${c}, post_id, user_id, parent_id, level, text, created_at, created_at,
					external_id, likes_count, comments_count
				from src
				on conflict (community_id, external_id) where external_id is not null do nothing
				returning id, post_id, parent_id, external_id, likes_count, comments_count),
			marked as (insert into new_comments select id from ins),
			posts_touched as (insert into touched_posts select post_id from ins),
			comments_touched as (
				insert into touched_comments select id from ins
				union all select parent_id from ins where parent_id is not null),
			placed as (delete from stage_comments s using ins where s.external_id = ins.external_id returning 1)
			select (select count(*) from ins)::int as n, (select count(*) from src)::int as sourced,
				(select count(*) from stage_comments)::int - (select count(*) from placed)::int as left,
				(select count(*) from src where not under_new)::int as under_old,
				(select count(*) from ins where parent_id is not null)::int as replies,
				(select coalesce(sum(likes_count), 0) from ins)::int as likes,
				(select coalesce(sum(comments_count), 0) from ins)::int as predicted_replies`
		const n = row?.n as number
		imported += n
		tally.place('postComments', n)
		tally.place('commentReplies', row?.replies as number)
		tally.predict('commentLikes', row?.likes as number)
		tally.predict('commentReplies', row?.predicted_replies as number)
		if (row?.sourced !== n || (row?.under_old as number) > 0) tally.doubt()
		// Nothing placed, or nothing left to place: a further round would find nothing.
		if (n === 0 || row?.left === 0) break
	}
	if ((await countOf(db, 'stage_comments')) === 0) return { imported, matched: 0 }
	// A row a concurrent writer placed first is a match, not a reject.
	const raced = await dropMatched(db, 'stage_comments', [matchedComment(db, c)])
	await rejectWhere(
		db,
		'stage_comments',
		'unknown parent_external_id',
		db`not exists (select 1 from comments k where k.community_id = ${c} and k.external_id = s.parent_external_id)`,
	)
	await rejectWhere(db, 'stage_comments', 'parent comment belongs to another post', db`true`)
	return { imported, matched: raced }
}

/**
 * The counters of every post and comment this run touched, recounted from the rows in
 * one statement per table; only the rows whose counters differ are written.
 */
export async function recountTouched(db: Db, c: number): Promise<number> {
	// The comments steps list what they touched as they go (their stage rows leave as
	// they are placed); new posts and what likes touched are still in the stage.
	await db`
		insert into touched_posts
		select p.id from stage_posts s join posts p on p.community_id = ${c} and p.external_id = s.external_id
		union all
		select p.id from stage_likes s join posts p on p.community_id = ${c} and p.external_id = s.post_external_id`
	await db`
		insert into touched_comments
		select k.id from stage_likes s join comments k on k.community_id = ${c} and k.external_id = s.comment_external_id`
	await db`analyze touched_posts, touched_comments`
	const posts = await db`
		with t as (select distinct id from touched_posts),
		l as (select l.post_id as id, count(*)::int as n from post_likes l join t on t.id = l.post_id
			where l.community_id = ${c} group by 1),
		k as (select k.post_id as id, count(*) filter (where not k.is_deleted)::int as n
			from comments k join t on t.id = k.post_id where k.community_id = ${c} group by 1),
		counts as (select t.id, coalesce(l.n, 0) as likes, coalesce(k.n, 0) as comments
			from t left join l on l.id = t.id left join k on k.id = t.id),
		changed as (
			update posts p set likes_count = x.likes, comments_count = x.comments
			from counts x
			where p.community_id = ${c} and p.id = x.id and (p.likes_count <> x.likes or p.comments_count <> x.comments)
			returning 1)
		select count(*)::int as n from changed`
	const comments = await db`
		with t as (select distinct id from touched_comments),
		l as (select l.comment_id as id, count(*)::int as n from comment_likes l join t on t.id = l.comment_id
			where l.community_id = ${c} group by 1),
		r as (select r.parent_id as id, count(*) filter (where not r.is_deleted)::int as n
			from comments r join t on t.id = r.parent_id where r.community_id = ${c} group by 1),
		counts as (select t.id, coalesce(l.n, 0) as likes, coalesce(r.n, 0) as replies
			from t left join l on l.id = t.id left join r on r.id = t.id),
		changed as (
			update comments k set likes_count = x.likes, comments_count = x.replies
			from counts x
			where k.community_id = ${c} and k.id = x.id and (k.likes_count <> x.likes or k.comments_count <> x.replies)
			returning 1)
		select count(*)::int as n from changed`
	return (posts[0]?.n as number) + (comments[0]?.n as number)
}
