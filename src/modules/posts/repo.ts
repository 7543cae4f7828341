// Posts: SQL only. topics.post_count follows post_topics and posts.is_deleted: each
// statement here that links, unlinks or deletes writes its topics' deltas
// (topics/repo.ts topicDeltas), never the count itself.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../../lib/db'
import { paged } from '../../lib/paged'
import { mayViewSql } from '../../lib/visibility'
import type { CachedPost, Viewer, Visibility } from '../../timelines'
import { topicDeltas } from '../topics/repo'

/**
 * The posts row alone (what a lock or a rule check needs). The full post — the row
 * with its author's uuid, links, tags and counters — is the feed engine's CachedPost,
 * loaded by loadPosts; this is that shape without the joined parts.
 */
export type PostRow = Omit<
	CachedPost,
	| 'author_uuid'
	| 'impressions_count'
	| 'reach_count'
	| 'topic_ids'
	| 'widget_ids'
	| 'tagged_user_ids'
	| 'hidden'
> & { deleted_by: number | null; delete_reason: string | null }

const selectPost = (db: Db) => db`
	id, community_id, user_id::float8 as user_id, heading, text, attachments, visibility, is_pinned, is_edited,
	is_deleted, deleted_by::float8 as deleted_by, delete_reason, likes_count, comments_count, post_shared_count, held,
	created_at::float8 as created_at, updated_at::float8 as updated_at`

export type NewPost = Pick<
	PostRow,
	| 'id'
	| 'community_id'
	| 'user_id'
	| 'heading'
	| 'text'
	| 'attachments'
	| 'visibility'
	| 'created_at'
	| 'updated_at'
> & {
	/** its topics, whose names its search vector holds (migrations/0100) */
	topic_ids?: string[]
}

/** Many new posts of the community in one statement (a batch of POST /feed/post). */
export async function insertPosts(db: Db, communityId: number, posts: NewPost[]): Promise<void> {
	if (posts.length === 0) return
	await db`with ${newPostsCte(db, communityId, posts)} select 1`
}

/**
 * New posts and what else they write, in ONE statement that commits on its own (no
 * BEGIN, no COMMIT to wait for; Postgres applies a statement whole or not at all): the
 * posts, and the CTEs of the feed engine (`fanout_job`, `fanout_notified`, `feed_mark`:
 * feedManager.postsCreatedCtes) and of the outbox (`event`, `deliveries`,
 * `deliveries_notified`: recordEventsCtes). Returns the feed marks.
 */
export async function insertPostsWith<T extends object>(
	db: Db,
	communityId: number,
	posts: NewPost[],
	feedCtes: Fragment,
	eventCtes: Fragment,
): Promise<T[]> {
	return await db<T[]>`
		with ${newPostsCte(db, communityId, posts)}, ${feedCtes}, ${eventCtes}
		select feed_mark.* from feed_mark, fanout_notified, deliveries_notified`
}

type Fragment = PendingQuery<Row[]>

/** The insert of the community's posts as a CTE, `new_post`. */
function newPostsCte(db: Db, communityId: number, posts: NewPost[]) {
	return db`
		new_post as (
			insert into posts (id, community_id, user_id, heading, text, attachments, visibility, created_at, updated_at,
				topic_names)
			select id, ${communityId}, user_id, heading, text, attachments::jsonb, visibility, created_at, updated_at,
				${topicNamesOf(db, db`string_to_array(p.topic_ids, ',')`, communityId)}
			from unnest(${posts.map((p) => p.id)}::text[],
				${posts.map((p) => p.user_id)}::int8[], ${posts.map((p) => p.heading)}::text[],
				${posts.map((p) => p.text)}::text[], ${posts.map((p) => JSON.stringify(p.attachments))}::text[],
				${posts.map((p) => p.visibility)}::text[], ${posts.map((p) => p.created_at)}::bigint[],
				${posts.map((p) => p.updated_at)}::bigint[], ${posts.map((p) => (p.topic_ids ?? []).join(','))}::text[])
				as p(id, user_id, heading, text, attachments, visibility, created_at, updated_at, topic_ids)
			returning 1)`
}

/**
 * The names of these topics of the community, as a post's `topic_names` holds them (its
 * search vector is generated from them, migrations/0100); '' for none.
 */
export function topicNamesOf(db: Db, topicIds: Fragment, communityId: number) {
	return db`coalesce((select string_agg(t.name, ' ' order by t.id) from topics t
		where t.community_id = ${communityId} and t.id = any(${topicIds})), '')`
}

export async function findPost(
	db: Db,
	communityId: number,
	id: string,
	lock = false,
): Promise<PostRow | null> {
	const [row] = lock
		? await db<
				PostRow[]
			>`select ${selectPost(db)} from posts where community_id = ${communityId} and id = ${id} for update`
		: await db<
				PostRow[]
			>`select ${selectPost(db)} from posts where community_id = ${communityId} and id = ${id}`
	return row ?? null
}

/** Links the post to those of `topicIds` that are topics of this community (others are skipped). */
export async function linkTopics(
	db: Db,
	postId: string,
	topicIds: string[],
	communityId: number,
): Promise<void> {
	if (topicIds.length === 0) return
	await db`
		with linked as (
			insert into post_topics (community_id, post_id, topic_id)
			select ${communityId}, ${postId}, id from topics where community_id = ${communityId} and id = any(${topicIds}::text[])
			on conflict do nothing
			returning topic_id, post_id),
		${topicDeltas(db, communityId, livePostLinks(db, communityId, 'linked'), 1)}
		select 1`
}

/**
 * linkTopics for many posts of the community in one statement: each link of a topic of
 * the community (others are skipped), in topic order.
 */
export async function linkTopicsOf(
	db: Db,
	communityId: number,
	links: { postId: string; topicId: string }[],
): Promise<void> {
	if (links.length === 0) return
	await db`
		with linked as (
			insert into post_topics (community_id, post_id, topic_id)
			select ${communityId}, l.post_id, t.id
			from unnest(${links.map((l) => l.postId)}::text[], ${links.map((l) => l.topicId)}::text[])
				as l(post_id, topic_id)
			join topics t on t.community_id = ${communityId} and t.id = l.topic_id
			order by t.id
			on conflict do nothing
			returning topic_id, post_id),
		${topicDeltas(db, communityId, livePostLinks(db, communityId, 'linked'), 1)}
		select 1`
}

export async function unlinkTopics(
	db: Db,
	communityId: number,
	postId: string,
	topicIds: string[],
): Promise<void> {
	if (topicIds.length === 0) return
	await db`
		with unlinked as (
			delete from post_topics
			where community_id = ${communityId} and post_id = ${postId} and topic_id = any(${topicIds}::text[])
			returning topic_id, post_id),
		${topicDeltas(db, communityId, livePostLinks(db, communityId, 'unlinked'), -1)}
		select 1`
}

export async function topicIdsOf(db: Db, communityId: number, postId: string): Promise<string[]> {
	const rows = await db<{ topic_id: string }[]>`
		select topic_id from post_topics where community_id = ${communityId} and post_id = ${postId}
		order by topic_id`
	return rows.map((r) => r.topic_id)
}

export async function widgetIdsOf(db: Db, communityId: number, postId: string): Promise<string[]> {
	const rows = await db<{ widget_id: string }[]>`
		select widget_id from post_widgets where community_id = ${communityId} and post_id = ${postId}
		order by widget_id`
	return rows.map((r) => r.widget_id)
}

export async function replaceWidgets(
	db: Db,
	communityId: number,
	postId: string,
	widgetIds: string[],
): Promise<void> {
	await db`delete from post_widgets where community_id = ${communityId} and post_id = ${postId}`
	await insertWidgetLinks(db, communityId, postId, widgetIds)
}

/** Links a new post to its widgets (an edit replaces them with replaceWidgets). */
export async function insertWidgetLinks(
	db: Db,
	communityId: number,
	postId: string,
	widgetIds: string[],
): Promise<void> {
	if (widgetIds.length === 0) return
	await db`
		insert into post_widgets (community_id, post_id, widget_id)
		select ${communityId}, ${postId}, unnest(${widgetIds}::text[]) on conflict do nothing`
}

/** Tags users in a new post (an edit replaces them with replaceTags). */
export async function insertTags(
	db: Db,
	communityId: number,
	postId: string,
	userIds: number[],
): Promise<void> {
	if (userIds.length === 0) return
	await db`
		insert into post_tags (community_id, post_id, user_id)
		select ${communityId}, ${postId}, unnest(${userIds}::int8[]) on conflict do nothing`
}

/** Replaces the tagged users; returns the ones newly tagged. */
export async function replaceTags(
	db: Db,
	communityId: number,
	postId: string,
	userIds: number[],
): Promise<number[]> {
	const before = await db<{ user_id: number }[]>`
		delete from post_tags where community_id = ${communityId} and post_id = ${postId}
		returning user_id::float8 as user_id`
	await insertTags(db, communityId, postId, userIds)
	const had = new Set(before.map((r) => r.user_id))
	return userIds.filter((id) => !had.has(id))
}

export interface PostChanges {
	heading?: string
	text?: string
	attachments?: unknown[]
	visibility?: Visibility
}

export async function updatePost(
	db: Db,
	communityId: number,
	id: string,
	changes: PostChanges,
	now: number,
): Promise<void> {
	await db`
		update posts set
			heading = coalesce(${changes.heading ?? null}, heading),
			text = coalesce(${changes.text ?? null}, text),
			attachments = coalesce(${changes.attachments ? db.json(changes.attachments as never) : null}, attachments),
			visibility = coalesce(${changes.visibility ?? null}, visibility),
			topic_names = ${topicNamesOf(
				db,
				db`array(select pt.topic_id from post_topics pt where pt.community_id = ${communityId} and pt.post_id = ${id})`,
				communityId,
			)},
			is_edited = true,
			updated_at = ${now}
		where community_id = ${communityId} and id = ${id}`
}

/** Deletes the post (kept as a row); its topics count it no more. */
export async function softDeletePost(
	db: Db,
	communityId: number,
	id: string,
	deletedBy: number,
	reason: string | null,
	now: number,
): Promise<void> {
	await db`
		with deleted as (
			update posts set is_deleted = true, deleted_by = ${deletedBy}, delete_reason = ${reason}, updated_at = ${now}
			where community_id = ${communityId} and id = ${id} and not is_deleted
			returning id),
		${deletedPostDeltas(db, communityId)}
		select 1`
}

/**
 * The topic deltas of the live posts the CTE `deleted` (their `id`s) has just deleted:
 * -1 for each of their topics.
 */
export function deletedPostDeltas(db: Db, communityId: number) {
	return topicDeltas(
		db,
		communityId,
		db`select pt.topic_id from post_topics pt
			where pt.community_id = ${communityId} and pt.post_id in (select id from deleted)`,
		-1,
	)
}

/**
 * The links of the CTE `cte` (its `topic_id, post_id`) whose posts are live (a deleted
 * post counts in no topic), the posts as the statement found them.
 */
function livePostLinks(db: Db, communityId: number, cte: string) {
	return db`select l.topic_id from ${db(cte)} l
		join posts p on p.community_id = ${communityId} and p.id = l.post_id where not p.is_deleted`
}

/** A page of a user's undeleted posts that the viewer may see, newest first, with the total. */
export async function userPostIds(
	db: Db,
	viewer: Viewer,
	userId: number,
	includeHidden: boolean,
	limit: number,
	offset: number,
): Promise<{ ids: string[]; total: number }> {
	const { rows, total } = await paged<{ id: string }>(db, {
		columns: db`p.id`,
		from: db`from posts p
			where p.community_id = ${viewer.communityId} and p.user_id = ${userId} and ${mayViewSql(db, 'p', viewer, { keepHidden: includeHidden })}`,
		orderBy: db`p.created_at desc, p.id desc`,
		limit,
		offset,
	})
	return { ids: rows.map((r) => r.id), total }
}
