// Posts: SQL only. topics.post_count follows post_topics and posts.is_deleted through
// triggers (migrations/0005_engagement.sql), so nothing here updates it.
import type { Db } from '../../lib/db'
import type { Visibility } from '../../timelines/repo'

export interface PostRow {
	id: string
	community_id: number
	user_id: number
	heading: string
	text: string
	attachments: unknown[]
	visibility: Visibility
	is_pinned: boolean
	is_edited: boolean
	is_deleted: boolean
	deleted_by: number | null
	delete_reason: string | null
	likes_count: number
	comments_count: number
	post_shared_count: number
	created_at: number
	updated_at: number
}

const selectPost = (db: Db) => db`
	id, community_id, user_id, heading, text, attachments, visibility, is_pinned, is_edited, is_deleted,
	deleted_by, delete_reason, likes_count, comments_count, post_shared_count,
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
>

export async function insertPost(db: Db, post: NewPost): Promise<void> {
	await db`
		insert into posts (id, community_id, user_id, heading, text, attachments, visibility, created_at, updated_at)
		values (${post.id}, ${post.community_id}, ${post.user_id}, ${post.heading}, ${post.text},
			${db.json(post.attachments as never)}, ${post.visibility}, ${post.created_at}, ${post.updated_at})`
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

export async function linkTopics(db: Db, postId: string, topicIds: string[]): Promise<void> {
	if (topicIds.length === 0) return
	await db`insert into post_topics ${db(topicIds.map((topic_id) => ({ post_id: postId, topic_id })))} on conflict do nothing`
}

export async function unlinkTopics(db: Db, postId: string, topicIds: string[]): Promise<void> {
	if (topicIds.length === 0) return
	await db`delete from post_topics where post_id = ${postId} and topic_id = any(${topicIds}::text[])`
}

export async function topicIdsOf(db: Db, postId: string): Promise<string[]> {
	const rows = await db<
		{ topic_id: string }[]
	>`select topic_id from post_topics where post_id = ${postId} order by topic_id`
	return rows.map((r) => r.topic_id)
}

export async function widgetIdsOf(db: Db, postId: string): Promise<string[]> {
	const rows = await db<
		{ widget_id: string }[]
	>`select widget_id from post_widgets where post_id = ${postId} order by widget_id`
	return rows.map((r) => r.widget_id)
}

export async function replaceWidgets(db: Db, postId: string, widgetIds: string[]): Promise<void> {
	await db`delete from post_widgets where post_id = ${postId}`
	if (widgetIds.length === 0) return
	await db`insert into post_widgets ${db(widgetIds.map((widget_id) => ({ post_id: postId, widget_id })))} on conflict do nothing`
}

/** Replaces the tagged users; returns the ones newly tagged. */
export async function replaceTags(db: Db, postId: string, userIds: number[]): Promise<number[]> {
	const before = await db<
		{ user_id: number }[]
	>`delete from post_tags where post_id = ${postId} returning user_id`
	if (userIds.length > 0) {
		await db`insert into post_tags ${db(userIds.map((user_id) => ({ post_id: postId, user_id })))} on conflict do nothing`
	}
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
			is_edited = true,
			updated_at = ${now}
		where id = ${id}`
}

export async function softDeletePost(
	db: Db,
	id: string,
	deletedBy: number,
	reason: string | null,
	now: number,
): Promise<void> {
	await db`
		update posts set is_deleted = true, deleted_by = ${deletedBy}, delete_reason = ${reason}, updated_at = ${now}
		where id = ${id}`
}

/** A page of a user's undeleted posts, newest first, with the total. */
export async function userPostIds(
	db: Db,
	communityId: number,
	userId: number,
	visibilities: Visibility[],
	includeHidden: boolean,
	limit: number,
	offset: number,
): Promise<{ ids: string[]; total: number }> {
	// "Hidden": the post has topics and all of them are disabled.
	const where = db`
		community_id = ${communityId} and user_id = ${userId} and not is_deleted
		and visibility = any(${visibilities}::text[])
		and (${includeHidden} or not exists (select 1 from post_topics pt where pt.post_id = posts.id)
			or exists (select 1 from post_topics pt join topics t on t.id = pt.topic_id where pt.post_id = posts.id and t.is_enabled))`
	const [rows, [count]] = await Promise.all([
		db<
			{ id: string }[]
		>`select id from posts where ${where} order by created_at desc, id desc limit ${limit} offset ${offset}`,
		db<{ total: number }[]>`select count(*)::int as total from posts where ${where}`,
	])
	return { ids: rows.map((r) => r.id), total: count?.total ?? 0 }
}
