// Post engagement: likes, saves, pins and views. Counters change in the same
// statement sequence (one transaction) as the row that justifies them, with atomic
// `x = x + 1` updates, so they stay exact under concurrency.
import type { Db } from '../../../lib/db'
import { paged } from '../../../lib/paged'
import { blockedBetween } from '../../../lib/sql-rules'
import { openToSql } from '../../../lib/visibility'
import type { SeenCounts } from '../../../timelines'

/**
 * Adds `delta` (+1, -1 or 0) to the likes_count of the post or comment; returns the new
 * count. The UPDATE takes the row lock that every like of it waits on until commit.
 */
export async function countLike(
	db: Db,
	communityId: number,
	target: LikeTarget,
	targetId: string,
	delta: number,
): Promise<number> {
	const [row] = await db<{ likes_count: number }[]>`
		update ${db(target.counted)} set likes_count = greatest(likes_count + ${delta}, 0)
		where community_id = ${communityId} and id = ${targetId} returning likes_count`
	return row?.likes_count ?? 0
}

/** How a like request changes its row: `set` adds it, `unset` removes it, `toggle` flips it. */
export type LikeMode = 'set' | 'unset' | 'toggle'

export interface LikeWrite {
	targetId: string
	userId: number
	at: number
	mode: LikeMode
}

/**
 * The like rows of many requests in ONE statement (distinct (target, user) pairs): adds
 * those to set or toggle, removes those to unset and the toggled ones that were there.
 * Returns the pairs it changed, `added` true for an insert. A toggle it neither added nor
 * removed met a concurrent change of the same pair (another process): the caller removes
 * it with removeLikes, as a statement that sees that change.
 *
 * Likes of the community's posts or comments. `openOnly` limits it to likes of posts
 * everyone in the community may like: live, and public or the liker's own —
 * lib/visibility.ts openTo, the part of the rule that needs no other read, so a batch
 * can write these with the posts' lock and read, before checking the rest. The other
 * likes are left untouched, for the caller.
 */
export function setLikes(
	db: Db,
	communityId: number,
	target: LikeTarget,
	likes: LikeWrite[],
	openOnly = false,
) {
	const column = db(target.column)
	const writable = openOnly
		? db`exists (select 1 from posts p where p.community_id = ${communityId} and p.id = i.target_id
			and ${openToSql(db, 'p', { userId: db`i.user_id`, communityId })})`
		: db`true`
	return db<{ target_id: string; user_id: number; added: boolean }[]>`
		with input as (
			select * from unnest(${likes.map((l) => l.targetId)}::text[], ${likes.map((l) => l.userId)}::int8[],
				${likes.map((l) => l.at)}::bigint[], ${likes.map((l) => l.mode)}::text[])
				as i(target_id, user_id, at, mode)
		), added as (
			insert into ${db(target.table)} (community_id, ${column}, user_id, created_at)
			select ${communityId}, target_id, user_id, at from input i where mode <> 'unset' and ${writable}
			on conflict do nothing returning ${column} as target_id, user_id
		), removed as (
			delete from ${db(target.table)} l using input i
			where l.community_id = ${communityId} and l.${column} = i.target_id and l.user_id = i.user_id
				and ${writable} and (i.mode = 'unset' or (i.mode = 'toggle'
				and not exists (select 1 from added a where a.target_id = i.target_id and a.user_id = i.user_id)))
			returning l.${column} as target_id, l.user_id
		)
		select target_id, user_id::float8 as user_id, true as added from added
		union all select target_id, user_id::float8, false from removed`
}

/** Removes the users' likes (pairs) of the community's posts or comments; returns the pairs removed. */
export function removeLikes(
	db: Db,
	communityId: number,
	target: LikeTarget,
	pairs: { targetId: string; userId: number }[],
) {
	const column = db(target.column)
	// No `using unnest(…)`: Citus cannot route the generic plan of a DELETE … USING a
	// function (a prepared statement's sixth run) to one shard; a filter on the table alone it can.
	return db<{ target_id: string; user_id: number }[]>`
		delete from ${db(target.table)} l
		where l.community_id = ${communityId} and l.${column} = any(${pairs.map((p) => p.targetId)}::text[])
			and l.${column} || ':' || l.user_id = any(${pairs.map((p) => `${p.targetId}:${p.userId}`)}::text[])
		returning l.${column} as target_id, l.user_id::float8 as user_id`
}

/**
 * countLike for many posts or comments of the community at once: adds each one's net
 * change (0 too: the answer needs the count) and returns the new counts. Takes their row
 * locks.
 */
export function countLikes(
	db: Db,
	communityId: number,
	target: LikeTarget,
	deltas: Map<string, number>,
) {
	const ids = [...deltas.keys()]
	// No `from unnest(…)`: Citus cannot route the generic plan of an UPDATE … FROM a
	// function (a prepared statement's sixth run) to one shard; a filter on the table alone it can.
	return db<{ id: string; likes_count: number }[]>`
		update ${db(target.counted)} c
		set likes_count = greatest(c.likes_count + (${[...deltas.values()]}::int[])[array_position(${ids}::text[], c.id)], 0)
		where c.community_id = ${communityId} and c.id = any(${ids}::text[]) returning c.id, c.likes_count`
}

export interface LikeRow {
	id: string
	user_id: number
	created_at: number
}

/** Where likes of posts and of comments live, and the table keeping their likes_count. */
export type LikeTarget =
	| { table: 'post_likes'; column: 'post_id'; counted: 'posts' }
	| { table: 'comment_likes'; column: 'comment_id'; counted: 'comments' }
export const postLikeTarget: LikeTarget = {
	table: 'post_likes',
	column: 'post_id',
	counted: 'posts',
}
export const commentLikeTarget: LikeTarget = {
	table: 'comment_likes',
	column: 'comment_id',
	counted: 'comments',
}

/**
 * A page of likes of a post or comment, newest first, leaving out users blocked by or
 * blocking the viewer. Likes have no id column: `_id` is derived from (target, user).
 */
export async function likesPage(
	db: Db,
	communityId: number,
	target: LikeTarget,
	targetId: string,
	viewerId: number,
	limit: number,
	offset: number,
): Promise<{ rows: LikeRow[]; total: number }> {
	const column = db(target.column)
	return paged<LikeRow>(db, {
		columns: db`substr(md5(${column} || ':' || l.user_id), 1, 24) as id, l.user_id::float8 as user_id, l.created_at::float8 as created_at`,
		from: db`from ${db(target.table)} l
			where l.community_id = ${communityId} and ${column} = ${targetId}
				and not ${blockedBetween(db, viewerId, db`l.user_id`, communityId)}`,
		orderBy: db`l.created_at desc, l.user_id desc`,
		limit,
		offset,
	})
}

export async function toggleSave(
	db: Db,
	communityId: number,
	postId: string,
	userId: number,
	now: number,
): Promise<boolean> {
	const deleted = await db`
		delete from post_saves where community_id = ${communityId} and post_id = ${postId} and user_id = ${userId}
		returning post_id`
	if (deleted.length > 0) return false
	await db`
		insert into post_saves (community_id, post_id, user_id, created_at)
		values (${communityId}, ${postId}, ${userId}, ${now}) on conflict do nothing`
	return true
}

/** Saved posts of the user (of the community) that are still live, newest save first. */
export async function savedPosts(
	db: Db,
	communityId: number,
	userId: number,
	limit: number,
	offset: number,
): Promise<{ ids: string[]; total: number }> {
	const { rows, total } = await paged<{ post_id: string }>(db, {
		columns: db`s.post_id`,
		from: db`from post_saves s join posts p on p.community_id = s.community_id and p.id = s.post_id
			where s.community_id = ${communityId} and s.user_id = ${userId} and not p.is_deleted`,
		orderBy: db`s.created_at desc, s.post_id desc`,
		limit,
		offset,
	})
	return { ids: rows.map((r) => r.post_id), total }
}

export async function togglePin(
	db: Db,
	communityId: number,
	postId: string,
	now: number,
): Promise<boolean> {
	const [row] = await db<{ is_pinned: boolean }[]>`
		update posts set is_pinned = not is_pinned, updated_at = ${now}
		where community_id = ${communityId} and id = ${postId} returning is_pinned`
	return row?.is_pinned ?? false
}

/**
 * One impression per listed post, and one reach for each post the user sees for the
 * first time (post_views holds the unique viewers). Ids are sorted so concurrent
 * calls lock rows in the same order and never deadlock.
 */
export async function recordViews(
	db: Db,
	communityId: number,
	userId: number,
	postIds: string[],
	now: number,
): Promise<SeenCounts[]> {
	const ids = [...new Set(postIds)].sort()
	const live = await db<{ id: string }[]>`
		select id from posts where community_id = ${communityId} and id = any(${ids}::text[]) and not is_deleted
		order by id for update`
	const liveIds = live.map((r) => r.id)
	if (liveIds.length === 0) return []
	const firsts = await db<{ post_id: string }[]>`
		insert into post_views (community_id, post_id, user_id, first_seen_at)
		select ${communityId}, unnest(${liveIds}::text[]), ${userId}, ${now}
		on conflict do nothing returning post_id`
	const first = firsts.map((r) => r.post_id)
	return db<SeenCounts[]>`
		update posts set impressions_count = impressions_count + 1,
			reach_count = reach_count + (case when id = any(${first}::text[]) then 1 else 0 end)
		where community_id = ${communityId} and id = any(${liveIds}::text[])
		returning id, impressions_count::float8 as impressions_count, reach_count`
}
