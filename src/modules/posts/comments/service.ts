// Comments: create, reply, read with replies, edit, soft delete, like toggle and
// likes list. Counters, tags and events commit together with the comment.
import { type Db, sql, transaction } from '../../../lib/db'
import { badRequest, forbidden, notFound } from '../../../lib/errors'
import { newId } from '../../../lib/ids'
import { paging } from '../../../lib/paging'
import { feedManager } from '../../../timelines'
import { Rights, requireRight } from '../../auth/rights'
import { isCm, type Session } from '../../auth/session'
import { isBlockedBetween } from '../../connections/repo'
import { announceStats } from '../../dashboard/stats-live'
import {
	onCommentAdded,
	onCommentLikeChanged,
	onCommentTagged,
	onContentDeleted,
} from '../../notifications/service'
import { usersMap } from '../../users/present'
import { findUserById, findUsersByIds } from '../../users/repo'
import { tagUsers } from '../../users/tags'
import { visiblePost } from '../access'
import { isBackDated, writtenAt } from '../backdating'
import type { LikeInput } from '../reactions/model'
import { commentLikeTarget, countLike } from '../reactions/repo'
import { likeIsNews, likesList, setLike } from '../reactions/service'
import type { PostRow } from '../repo'
import { getPost } from '../service'
import { recordCommentEvent } from './events'
import { type CommentViewer, presentComment } from './present'
import {
	addCommentTags,
	type CommentRow,
	childComments,
	findComment,
	insertComment,
	likedCommentIds,
	softDeleteComment,
	updateCommentText,
} from './repo'

const TEXT_MAX = 10_000

function commentText(text: string): string {
	const trimmed = text.trim()
	if (trimmed === '') throw badRequest('text is required')
	if (trimmed.length > TEXT_MAX) throw badRequest(`text longer than ${TEXT_MAX} characters`)
	return trimmed
}

/** A live comment of the post, visible to the viewer (not blocked either way); 404 otherwise. */
async function liveComment(
	db: Db,
	session: Session,
	postId: string,
	commentId: string,
	lock = false,
): Promise<CommentRow> {
	const comment = await findComment(db, session.communityId, postId, commentId, lock)
	if (!comment || comment.is_deleted) throw notFound('Comment')
	if (
		comment.user_id !== session.userId &&
		(await isBlockedBetween(db, session.communityId, session.userId, comment.user_id))
	) {
		throw notFound('Comment')
	}
	return comment
}

async function viewerOf(
	session: Session,
	post: PostRow,
	comments: CommentRow[],
): Promise<CommentViewer> {
	const liked = await likedCommentIds(
		sql,
		session.communityId,
		session.userId,
		comments.map((c) => c.id),
	)
	return { userId: session.userId, isCm: isCm(session), postAuthorId: post.user_id, liked }
}

async function usersOf(comments: CommentRow[]) {
	const [first] = comments
	if (!first) return usersMap([])
	const ids = [...new Set(comments.map((c) => c.user_id))]
	return usersMap(await findUsersByIds(sql, first.community_id, ids))
}

export interface CommentInput {
	text: string
	temp_id?: string
	created_at?: number
}

export async function addComment(
	session: Session,
	postId: string,
	parentId: string | null,
	input: CommentInput,
) {
	requireRight(session, Rights.comment)
	const text = commentText(input.text)
	const now = Date.now()
	const createdAt = writtenAt(input.created_at, now)
	const { post, comment, parent } = await transaction(async (tx) => {
		const post = await visiblePost(tx, session, postId)
		const parent = parentId ? await liveComment(tx, session, post.id, parentId, true) : null
		const id = newId()
		await insertComment(tx, {
			id,
			community_id: session.communityId,
			post_id: post.id,
			user_id: session.userId,
			parent_id: parent?.id ?? null,
			level: parent ? parent.level + 1 : 1,
			text,
			temp_id: input.temp_id ?? null,
			created_at: createdAt,
		})
		const tagged = await tagUsers(tx, session.communityId, [text], (ids) =>
			addCommentTags(tx, session.communityId, id, ids),
		)
		await onCommentAdded(tx, {
			communityId: session.communityId,
			actorId: session.userId,
			postId: post.id,
			postAuthorId: post.user_id,
			commentId: id,
			parent,
			taggedIds: tagged.map((u) => u.id),
			history: isBackDated(createdAt, now),
		})
		const comment = (await findComment(tx, post.community_id, post.id, id)) as CommentRow
		const news = !isBackDated(createdAt, now)
		if (news) await recordCommentEvent(tx, session.communityId, 'comment.added', comment)
		if (news && tagged.length > 0)
			await recordCommentEvent(tx, session.communityId, 'comment.tagged', comment, {
				tagged_users: tagged,
			})
		return {
			post,
			comment,
			parent: parent
				? ((await findComment(tx, post.community_id, post.id, parent.id)) as CommentRow)
				: null,
		}
	})
	await feedManager.onPostsChanged(session.communityId, [post.id])
	announceStats(session.communityId, 'comment.created')
	const shown = parent ? [comment, parent] : [comment]
	const viewer = await viewerOf(session, post, shown)
	return {
		comment: presentComment(comment, viewer, {
			parent: parent ? presentComment(parent, viewer) : null,
		}),
		users: await usersOf(shown),
	}
}

export async function getComment(
	session: Session,
	postId: string,
	commentId: string,
	page?: number,
	pageSize?: number,
) {
	const post = await visiblePost(sql, session, postId)
	const comment = await findComment(sql, post.community_id, post.id, commentId)
	if (
		!comment ||
		(comment.user_id !== session.userId &&
			(await isBlockedBetween(sql, session.communityId, session.userId, comment.user_id)))
	) {
		throw notFound('Comment')
	}
	const p = paging(page, pageSize)
	const [parent, replies] = await Promise.all([
		comment.parent_id ? findComment(sql, post.community_id, post.id, comment.parent_id) : null,
		childComments(
			sql,
			session.communityId,
			post.id,
			comment.id,
			session.userId,
			p.pageSize,
			p.offset,
		),
	])
	const shown = [comment, ...replies.rows, ...(parent ? [parent] : [])]
	const viewer = await viewerOf(session, post, shown)
	return {
		comment: presentComment(comment, viewer, {
			parent: parent ? presentComment(parent, viewer) : null,
			replies: replies.rows.map((r) => presentComment(r, viewer)),
		}),
		users: await usersOf(shown),
		total_count: replies.total,
	}
}

/** The root comments of a post, a page at a time: GET /feed/post/:post_id/comment. */
export async function listRootComments(
	session: Session,
	postId: string,
	page?: number,
	pageSize?: number,
) {
	const post = await visiblePost(sql, session, postId)
	const { replies, users, total_count } = await rootComments(session, post, page, pageSize)
	return { comments: replies, users, total_count }
}

/** The post page (GET /feed/post/:post_id): the post with a page of its root comments as `replies`. */
export async function postPage(session: Session, postId: string, page?: number, pageSize?: number) {
	const { row, ...found } = await getPost(session, postId)
	const comments = await rootComments(session, row, page, pageSize)
	return {
		...found,
		post: { ...found.post, replies: comments.replies },
		users: { ...comments.users, ...found.users },
		replies_count: comments.total_count,
	}
}

/** A page of root comments of a post for the viewer (for GET /feed/post/:post_id's `replies`). */
async function rootComments(session: Session, post: PostRow, page?: number, pageSize?: number) {
	const p = paging(page, pageSize)
	const { rows, total } = await childComments(
		sql,
		session.communityId,
		post.id,
		null,
		session.userId,
		p.pageSize,
		p.offset,
	)
	const viewer = await viewerOf(session, post, rows)
	return {
		replies: rows.map((r) => presentComment(r, viewer)),
		users: await usersOf(rows),
		total_count: total,
	}
}

export async function editComment(
	session: Session,
	postId: string,
	commentId: string,
	input: CommentInput,
) {
	const text = commentText(input.text)
	const { post, comment } = await transaction(async (tx) => {
		const post = await visiblePost(tx, session, postId)
		const current = await liveComment(tx, session, post.id, commentId, true)
		if (current.user_id !== session.userId) throw forbidden()
		await updateCommentText(tx, session.communityId, current.id, text, Date.now())
		const tagged = await tagUsers(tx, session.communityId, [text], (ids) =>
			addCommentTags(tx, session.communityId, current.id, ids),
		)
		await onCommentTagged(tx, {
			communityId: session.communityId,
			actorId: session.userId,
			postId: post.id,
			commentId: current.id,
			taggedIds: tagged.map((u) => u.id),
		})
		const comment = (await findComment(tx, post.community_id, post.id, current.id)) as CommentRow
		if (tagged.length > 0)
			await recordCommentEvent(tx, session.communityId, 'comment.tagged', comment, {
				tagged_users: tagged,
			})
		return { post, comment }
	})
	const viewer = await viewerOf(session, post, [comment])
	return { comment: presentComment(comment, viewer), users: await usersOf([comment]) }
}

export async function deleteComment(
	session: Session,
	postId: string,
	commentId: string,
	reason: string | undefined,
) {
	const { post, comment } = await transaction(async (tx) => {
		const post = await visiblePost(tx, session, postId)
		const current = await liveComment(tx, session, post.id, commentId, true)
		const allowed =
			current.user_id === session.userId || post.user_id === session.userId || isCm(session)
		if (!allowed) throw forbidden()
		await softDeleteComment(tx, current, session.userId, reason?.trim() || null, Date.now())
		await onContentDeleted(tx, { communityId: session.communityId, commentId: current.id })
		return {
			post,
			comment: (await findComment(tx, post.community_id, post.id, current.id)) as CommentRow,
		}
	})
	await feedManager.onPostsChanged(session.communityId, [post.id])
	const viewer = await viewerOf(session, post, [comment])
	return { comment: presentComment(comment, viewer), users: await usersOf([comment]) }
}

export async function toggleCommentLike(
	session: Session,
	postId: string,
	commentId: string,
	input: LikeInput = {},
) {
	return transaction(async (tx) => {
		const post = await visiblePost(tx, session, postId)
		const comment = await liveComment(tx, session, post.id, commentId)
		const { liked, added, delta } = await setLike(
			tx,
			session.communityId,
			commentLikeTarget,
			comment.id,
			session.userId,
			input,
		)
		await countLike(tx, session.communityId, commentLikeTarget, comment.id, delta)
		if (added || !liked)
			await onCommentLikeChanged(tx, {
				communityId: session.communityId,
				actorId: session.userId,
				postId: post.id,
				commentId: comment.id,
				commentAuthorId: comment.user_id,
				liked,
				history: added && !likeIsNews(added, input),
			})
		const current = (await findComment(tx, post.community_id, post.id, comment.id)) as CommentRow
		if (likeIsNews(added, input)) {
			const liker = await findUserById(tx, session.communityId, session.userId)
			await recordCommentEvent(tx, session.communityId, 'comment.react', current, {
				liked_by_user: liker ?? undefined,
			})
		}
		return { is_liked: liked, likes_count: current.likes_count }
	})
}

export async function listCommentLikes(
	session: Session,
	postId: string,
	commentId: string,
	page?: number,
	pageSize?: number,
) {
	const post = await visiblePost(sql, session, postId)
	const comment = await liveComment(sql, session, post.id, commentId)
	return likesList(session, commentLikeTarget, comment.id, page, pageSize)
}
