// SQL of the feed engine: what the Redis caches and sorted sets are filled from.
// Postgres is the source of truth; everything read here can be rebuilt at any time.

import type postgres from 'postgres'
import type { Db } from '../lib/db'
import { hiddenByTopicLinks, hiddenByTopics } from '../lib/sql-rules'

import type { Visibility } from '../lib/visibility'

export type { Visibility }

/** A post as cached in Redis: the row, its topic and widget links, and whether all its topics are disabled. */
export interface CachedPost {
	id: string
	community_id: number
	user_id: number
	/** The author's uuid: posts carry it as user_id and uuid. */
	author_uuid: string
	heading: string
	text: string
	attachments: unknown[]
	visibility: Visibility
	is_pinned: boolean
	is_edited: boolean
	is_deleted: boolean
	likes_count: number
	comments_count: number
	post_shared_count: number
	impressions_count: number
	reach_count: number
	created_at: number
	updated_at: number
	topic_ids: string[]
	widget_ids: string[]
	tagged_user_ids: number[]
	/** True when the post has topics and every one of them is disabled. */
	hidden: boolean
	/** Held back by moderation (posts.held): null when not. */
	held: string | null
}

export interface CachedUser {
	id: number
	uuid: string
	community_id: number
	/** The customer's id; null for the dashboard owner, who has none. */
	user_unique_id: string | null
	name: string
	image_url: string
	custom_title: string
	is_guest: boolean
	is_deleted: boolean
}

// bigint columns are cast to float8 so they arrive as numbers (epoch ms and user ids fit exactly).
export async function loadPosts(db: Db, communityId: number, ids: string[]): Promise<CachedPost[]> {
	if (ids.length === 0) return []
	return postsOf(db, communityId, ids)
}

/**
 * loadPosts that also locks the rows, in id order, as their counters' UPDATE would: a
 * batch of likes of one community reads and locks its posts in one statement
 * (like-batch.ts). Not async: the caller `.execute()`s it to send it ahead of the rest.
 */
export function loadPostsLocked(db: Db, communityId: number, ids: string[]) {
	return postsOf(db, communityId, ids, db`order by p.id for no key update of p`)
}

function postsOf(db: Db, communityId: number, ids: string[], rest = db``) {
	return db<CachedPost[]>`
		select p.id, p.community_id, p.user_id::float8 as user_id, (select u.uuid::text from users u where u.community_id = ${communityId} and u.id = p.user_id) as author_uuid, p.heading, p.text, p.attachments, p.visibility,
			p.is_pinned, p.is_edited, p.is_deleted, p.likes_count, p.comments_count, p.post_shared_count,
			p.impressions_count::float8 as impressions_count, p.reach_count,
			p.created_at::float8 as created_at, p.updated_at::float8 as updated_at,
			coalesce((select array_agg(pt.topic_id order by pt.topic_id) from post_topics pt
				where pt.community_id = ${communityId} and pt.post_id = p.id), '{}') as topic_ids,
			coalesce((select array_agg(pw.widget_id order by pw.widget_id) from post_widgets pw
				where pw.community_id = ${communityId} and pw.post_id = p.id), '{}') as widget_ids,
			coalesce((select array_agg(tg.user_id order by tg.user_id)::float8[] from post_tags tg
				where tg.community_id = ${communityId} and tg.post_id = p.id), '{}') as tagged_user_ids,
			${hiddenByTopics(db, 'p', communityId)} as hidden, p.held
		from posts p
		where p.community_id = ${communityId} and p.id = any(${ids}::text[])
		${rest}`
}

export async function loadUsers(db: Db, communityId: number, ids: number[]): Promise<CachedUser[]> {
	if (ids.length === 0) return []
	return db<CachedUser[]>`
		select id::float8 as id, uuid, community_id, user_unique_id, name, image_url, custom_title, is_guest, is_deleted
		from users where community_id = ${communityId} and id = any(${ids}::int8[])`
}

export async function likedPostIds(db: Db, communityId: number, userId: number): Promise<string[]> {
	const rows = await db<{ post_id: string }[]>`
		select post_id from post_likes where community_id = ${communityId} and user_id = ${userId}`
	return rows.map((r) => r.post_id)
}

export async function savedPostIds(db: Db, communityId: number, userId: number): Promise<string[]> {
	const rows = await db<{ post_id: string }[]>`
		select post_id from post_saves where community_id = ${communityId} and user_id = ${userId}`
	return rows.map((r) => r.post_id)
}

/** Posts `userId` hid for themself or reported (hidden_posts), in their own community. */
export async function hiddenPostIds(
	db: Db,
	communityId: number,
	userId: number,
): Promise<string[]> {
	const rows = await db<{ post_id: string }[]>`
		select post_id from hidden_posts where community_id = ${communityId} and user_id = ${userId}`
	return rows.map((r) => r.post_id)
}

/** What the viewer reported in chat: conversations (ids) and members (user ids). */
export async function reportedInChat(db: Db, communityId: number, userId: number) {
	const rows = await db<{ entity_type: 'conversation' | 'member'; id: string }[]>`
		select distinct entity_type,
			case when entity_type = 'member' then accused_user_id::text else entity_id end as id
		from reports
		where community_id = ${communityId}
			and reporter_user_id = ${userId} and entity_type in ('conversation', 'member')`
	return {
		conversations: rows.filter((r) => r.entity_type === 'conversation').map((r) => r.id),
		members: rows.filter((r) => r.entity_type === 'member').map((r) => r.id),
	}
}

/** Users hidden from `userId` in either direction: those it blocked and those who blocked it. */
export async function blockedUserIds(
	db: Db,
	communityId: number,
	userId: number,
): Promise<number[]> {
	const rows = await db<{ id: number }[]>`
		select blocked_id::float8 as id from blocks where community_id = ${communityId} and blocker_id = ${userId}
		union
		select blocker_id::float8 as id from blocks where community_id = ${communityId} and blocked_id = ${userId}`
	return rows.map((r) => r.id)
}

export async function postIdsInTopics(
	db: Db,
	communityId: number,
	topicIds: string[],
): Promise<string[]> {
	if (topicIds.length === 0) return []
	const rows = await db<{ post_id: string }[]>`
		select distinct post_id from post_topics
		where community_id = ${communityId} and topic_id = any(${topicIds}::text[])`
	return rows.map((r) => r.post_id)
}

export async function topicStates(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<{ id: string; is_enabled: boolean }[]> {
	if (ids.length === 0) return []
	return db`select id, is_enabled from topics where community_id = ${communityId} and id = any(${ids}::text[])`
}

export async function existingWidgetIds(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<string[]> {
	if (ids.length === 0) return []
	const rows = await db<{ id: string }[]>`
		select id from widgets where community_id = ${communityId} and id = any(${ids}::text[])`
	return rows.map((r) => r.id)
}

/** What places a post in the community's sorted sets (index-post.ts setsFor) and scores it there. */
export type PlacedPost = Pick<
	CachedPost,
	| 'id'
	| 'community_id'
	| 'created_at'
	| 'visibility'
	| 'is_deleted'
	| 'hidden'
	| 'topic_ids'
	| 'widget_ids'
>

/**
 * Every post of a community with only what places it, handed to `onBatch` `size` at a
 * time (awaited before the next batch is read); returns how many. One set-based query
 * under a cursor: loading full posts per id page cost most of a rebuild (12 of 14 s for
 * 300,000 posts), and so did per-post subqueries for the topic and widget links.
 */
export async function eachPlacementBatch(
	db: postgres.Sql,
	communityId: number,
	size: number,
	onBatch: (posts: PlacedPost[]) => Promise<void>,
): Promise<number> {
	return db.begin(async (tx) => {
		// The links are grouped in memory (the default 4MB spills them to disk); a JIT
		// compile of this plan costs more than running it.
		await tx`set local work_mem = '64MB'`
		await tx`set local jit = off`
		let total = 0
		const posts = tx<PlacedPost[]>`
			select p.id, p.community_id, p.created_at::float8 as created_at, p.visibility, p.is_deleted,
				coalesce(t.ids, '{}') as topic_ids, coalesce(w.ids, '{}') as widget_ids,
				coalesce(t.hidden, false) as hidden
			from posts p
			left join (
				select pt.post_id, array_agg(pt.topic_id order by pt.topic_id) as ids,
					${hiddenByTopicLinks(tx, 'tp')} as hidden
				from post_topics pt join topics tp on tp.community_id = pt.community_id and tp.id = pt.topic_id
				where pt.community_id = ${communityId} group by 1) t on t.post_id = p.id
			left join (
				select pw.post_id, array_agg(pw.widget_id order by pw.widget_id) as ids
				from post_widgets pw join widgets wd on wd.community_id = pw.community_id and wd.id = pw.widget_id
				where pw.community_id = ${communityId} group by 1) w on w.post_id = p.id
			where p.community_id = ${communityId}`
		for await (const batch of posts.cursor(size)) {
			total += batch.length
			await onBatch(batch)
		}
		return total
	})
}

export async function communityUserIds(db: Db, communityId: number): Promise<number[]> {
	const rows = await db<
		{ id: number }[]
	>`select id::float8 as id from users where community_id = ${communityId}`
	return rows.map((r) => r.id)
}

export async function communityIds(db: Db): Promise<number[]> {
	const rows = await db<{ id: number }[]>`select id from communities order by id`
	return rows.map((r) => r.id)
}
