// Comments and comment likes: SQL only. Counters (posts.comments_count, a parent's
// comments_count, likes_count) move in the same transaction as the row they count,
// with atomic updates.
import type { Db } from '../../../lib/db'
import { paged } from '../../../lib/paged'
import { blockedBetween, reportedCommentBy } from '../../../lib/sql-rules'

export interface CommentRow {
	id: string
	community_id: number
	post_id: string
	user_id: number
	uuid: string
	parent_id: string | null
	level: number
	text: string
	temp_id: string | null
	likes_count: number
	comments_count: number
	is_edited: boolean
	is_deleted: boolean
	deleted_by: number | null
	deleted_by_uuid: string | null
	delete_reason: string | null
	created_at: number
	updated_at: number
}

const commentColumns = (db: Db) => db`
	c.id, c.community_id, c.post_id, c.user_id::float8 as user_id, u.uuid::text as uuid, c.parent_id, c.level, c.text,
	c.temp_id, c.likes_count, c.comments_count, c.is_edited, c.is_deleted, c.deleted_by::float8 as deleted_by,
	d.uuid::text as deleted_by_uuid, c.delete_reason, c.created_at::float8 as created_at, c.updated_at::float8 as updated_at`

const fromComments = (db: Db) =>
	db`from comments c join users u on u.community_id = c.community_id and u.id = c.user_id
		left join users d on d.community_id = c.community_id and d.id = c.deleted_by`

const selectComment = (db: Db) => db`${commentColumns(db)} ${fromComments(db)}`

export interface NewComment {
	id: string
	community_id: number
	post_id: string
	user_id: number
	parent_id: string | null
	level: number
	text: string
	temp_id: string | null
	created_at: number
}

/** Inserts the comment and counts it on the post (and on its parent for a reply). */
export async function insertComment(db: Db, c: NewComment): Promise<void> {
	await db`
		insert into comments (id, community_id, post_id, user_id, parent_id, level, text, temp_id, created_at, updated_at)
		values (${c.id}, ${c.community_id}, ${c.post_id}, ${c.user_id}, ${c.parent_id}, ${c.level}, ${c.text},
			${c.temp_id}, ${c.created_at}, ${c.created_at})`
	await db`
		update posts set comments_count = comments_count + 1
		where community_id = ${c.community_id} and id = ${c.post_id}`
	if (c.parent_id)
		await db`
			update comments set comments_count = comments_count + 1
			where community_id = ${c.community_id} and id = ${c.parent_id}`
}

export async function findComment(
	db: Db,
	communityId: number,
	postId: string,
	commentId: string,
	lock = false,
): Promise<CommentRow | null> {
	const [row] = lock
		? await db<
				CommentRow[]
			>`select ${selectComment(db)} where c.community_id = ${communityId} and c.post_id = ${postId} and c.id = ${commentId} for update of c`
		: await db<
				CommentRow[]
			>`select ${selectComment(db)} where c.community_id = ${communityId} and c.post_id = ${postId} and c.id = ${commentId}`
	return row ?? null
}

/**
 * A page of live comments under a post (parentId null: root comments) or under a
 * comment, oldest first, leaving out users blocked by or blocking the viewer and the
 * comments the viewer reported.
 */
export async function childComments(
	db: Db,
	communityId: number,
	postId: string,
	parentId: string | null,
	viewerId: number,
	limit: number,
	offset: number,
): Promise<{ rows: CommentRow[]; total: number }> {
	return paged<CommentRow>(db, {
		columns: commentColumns(db),
		from: db`${fromComments(db)}
			where c.community_id = ${communityId} and c.post_id = ${postId}
			and ${parentId === null ? db`c.parent_id is null` : db`c.parent_id = ${parentId}`}
			and not c.is_deleted and not ${blockedBetween(db, viewerId, db`c.user_id`, communityId)}
			and not ${reportedCommentBy(db, communityId, viewerId, 'c')}`,
		orderBy: db`c.created_at, c.id`,
		limit,
		offset,
	})
}

export async function likedCommentIds(
	db: Db,
	communityId: number,
	userId: number,
	commentIds: string[],
): Promise<Set<string>> {
	if (commentIds.length === 0) return new Set()
	const rows = await db<{ comment_id: string }[]>`
		select comment_id from comment_likes
		where community_id = ${communityId} and user_id = ${userId} and comment_id = any(${commentIds}::text[])`
	return new Set(rows.map((r) => r.comment_id))
}

export async function updateCommentText(
	db: Db,
	communityId: number,
	commentId: string,
	text: string,
	now: number,
): Promise<void> {
	await db`
		update comments set text = ${text}, is_edited = true, updated_at = ${now}
		where community_id = ${communityId} and id = ${commentId}`
}

/** Soft delete; the comment stops counting on its post and parent. */
export async function softDeleteComment(
	db: Db,
	comment: Pick<CommentRow, 'id' | 'community_id' | 'post_id' | 'parent_id'>,
	deletedBy: number,
	reason: string | null,
	now: number,
): Promise<void> {
	await db`
		update comments set is_deleted = true, deleted_by = ${deletedBy}, delete_reason = ${reason}, updated_at = ${now}
		where community_id = ${comment.community_id} and id = ${comment.id}`
	await db`
		update posts set comments_count = greatest(comments_count - 1, 0)
		where community_id = ${comment.community_id} and id = ${comment.post_id}`
	if (comment.parent_id) {
		await db`
			update comments set comments_count = greatest(comments_count - 1, 0)
			where community_id = ${comment.community_id} and id = ${comment.parent_id}`
	}
}

/** Records the tagged users; returns those not tagged in this comment before. */
export async function addCommentTags(
	db: Db,
	communityId: number,
	commentId: string,
	userIds: number[],
): Promise<number[]> {
	if (userIds.length === 0) return []
	const rows = await db<{ user_id: number }[]>`
		insert into comment_tags (community_id, comment_id, user_id)
		select ${communityId}, ${commentId}, unnest(${userIds}::int8[])
		on conflict do nothing returning user_id::float8 as user_id`
	return rows.map((r) => r.user_id)
}

/** The community's comments by id, in any order (deleted ones included: callers decide). */
export function findCommentsByIds(db: Db, communityId: number, ids: string[]) {
	if (ids.length === 0) return Promise.resolve([] as CommentRow[])
	return db<CommentRow[]>`
		select ${selectComment(db)} where c.community_id = ${communityId} and c.id in ${db(ids)}`
}
