// Post engagement rules: like and save toggles, likes list, pin toggle (author or CM),
// saved posts of a user, and seen (impressions and unique reach). Each change and its
// event commit together; the feed caches are told after the commit.

import type postgres from 'postgres'
import { type Db, pipelinedTransaction, sql } from '../../../lib/db'
import { badRequest, forbidden, notFound } from '../../../lib/errors'
import { batchCommit } from '../../../lib/group-commit'
import { isUuid } from '../../../lib/ids'
import { paging } from '../../../lib/paging'
import { feedManager, hydratePosts } from '../../../timelines'
import { recordEvent } from '../../../webhooks/outbox'
import { isCm, type Session, viewerOf } from '../../auth/session'
import { presentUserForWebhook, usersMap } from '../../users/present'
import { findUserById, findUserByUuid, findUsersByIds } from '../../users/repo'
import { visiblePost } from '../access'
import { isBackDated, writtenAt } from '../backdating'
import { postEventData } from '../present'
import { type LikeAnswer, type LikeRequest, likeTogether } from './like-batch'
import { type LikeOutcome, modeOf, writeLike } from './like-rows'
import type { LikeInput } from './model'
import {
	type LikeTarget,
	likesPage,
	postLikeTarget,
	recordViews,
	savedPosts,
	togglePin,
	toggleSave,
} from './repo'

async function actor(db: Db, session: Session) {
	const user = await findUserById(db, session.communityId, session.userId)
	if (!user) throw notFound('User')
	return presentUserForWebhook(user)
}

/**
 * Sets the like row to `input.value`, or toggles it when no value is given (like-rows.ts,
 * the same steps as a batch of post likes). Returns whether the like is now there,
 * whether this call added it (only then is there news to tell) and the change the
 * counter owes (the caller applies it with countLike, as late in its transaction as it
 * can: that takes the row lock).
 */
export function setLike(
	tx: Db,
	communityId: number,
	target: LikeTarget,
	targetId: string,
	userId: number,
	input: LikeInput,
): Promise<LikeOutcome> {
	const at = writtenAt(input.created_at, Date.now())
	return writeLike(tx, communityId, target, { targetId, userId, at, mode: modeOf(input) })
}

/** True when a like just added is news (not a back-dated one from a migration). */
export const likeIsNews = (added: boolean, input: LikeInput) =>
	added && !isBackDated(input.created_at ?? Date.now(), Date.now())

/**
 * Likes and unlikes of posts share transactions (lib/group-commit.ts batchCommit), a
 * batch's likes written by a few set-based statements in two round trips (like-batch.ts,
 * BEGIN and COMMIT pipelined with them): on a popular post the counter and the activity
 * group are locked once per batch, not once per like. A user's likes of one post never
 * share a batch, and keep their order. A batch holds one community's likes: its
 * statements each name it.
 */
const likeBatches = batchCommit<LikeRequest, LikeAnswer, never, postgres.ReservedSql>({
	key: (r) => `${r.postId}:${r.session.userId}`,
	group: (r) => r.session.communityId,
	together: likeTogether,
	open: pipelinedTransaction,
	// One batch in flight: with two round trips a batch, the likes that wait make one
	// larger batch, and that beat two smaller ones in flight (docs/feeds.md: +5 % spread,
	// +28 % on one post). Batches of other processes still lock their posts in order.
})

export const togglePostLike = (session: Session, postId: string, input: LikeInput = {}) =>
	likeBatches.run({ session, postId, input })

export async function listPostLikes(
	session: Session,
	postId: string,
	page?: number,
	pageSize?: number,
) {
	const post = await visiblePost(sql, session, postId)
	return likesList(session, postLikeTarget, post.id, page, pageSize)
}

/**
 * `data` of a like list (post or comment): a page of likes (`_id`, `user_id` as the
 * liker's uuid, `created_at`), users, total_count. Each like also carries `uuid` (the
 * same uuid) and `updated_at` (a like is never edited: its creation time), the fields
 * feed-js's declared `Like` reads.
 */
export async function likesList(
	session: Session,
	target: LikeTarget,
	targetId: string,
	page?: number,
	pageSize?: number,
) {
	const p = paging(page, pageSize)
	const { rows, total } = await likesPage(
		sql,
		session.communityId,
		target,
		targetId,
		session.userId,
		p.pageSize,
		p.offset,
	)
	const users = await findUsersByIds(sql, session.communityId, [
		...new Set(rows.map((r) => r.user_id)),
	])
	const uuidOf = new Map(users.map((u) => [u.id, u.uuid]))
	return {
		likes: rows.map((r) => {
			const uuid = uuidOf.get(r.user_id) ?? ''
			return {
				_id: r.id,
				user_id: uuid,
				uuid,
				created_at: r.created_at,
				updated_at: r.created_at,
			}
		}),
		users: usersMap(users),
		total_count: total,
	}
}

export async function togglePostSave(session: Session, postId: string) {
	const isSaved = await sql.begin(async (tx) => {
		const post = await visiblePost(tx, session, postId)
		return toggleSave(tx, session.communityId, post.id, session.userId, Date.now())
	})
	await feedManager.onSave(session.userId, postId, isSaved)
	return { is_saved: isSaved }
}

export async function togglePostPin(session: Session, postId: string) {
	const isPinned = await sql.begin(async (tx) => {
		const post = await visiblePost(tx, session, postId, true)
		if (post.user_id !== session.userId && !isCm(session)) throw forbidden()
		const pinned = await togglePin(tx, session.communityId, post.id, Date.now())
		if (pinned) {
			const data = {
				...(await postEventData(tx, session.communityId, post.id)),
				pinned_by: await actor(tx, session),
			}
			await recordEvent(tx, { communityId: session.communityId, event: 'post.pinned', data })
		}
		return pinned
	})
	await feedManager.onPostsChanged(session.communityId, [postId])
	return { is_pinned: isPinned }
}

export async function listSavedPosts(
	session: Session,
	uuid: string,
	page?: number,
	pageSize?: number,
) {
	const owner = isUuid(uuid) ? await findUserByUuid(sql, session.communityId, uuid) : null
	if (!owner) throw notFound('User')
	if (owner.id !== session.userId && !isCm(session)) throw forbidden()
	const p = paging(page, pageSize, 20)
	const { ids, total } = await savedPosts(sql, session.communityId, owner.id, p.pageSize, p.offset)
	const { posts, users } = await hydratePosts(viewerOf(session), ids, {
		visibilities: ['public', 'connections', 'private'],
	})
	return { posts, users, total_count: total }
}

export async function markSeen(session: Session, postIds: string[]) {
	if (postIds.length === 0) throw badRequest('post_ids is required')
	const posts = await sql.begin((tx) =>
		recordViews(tx, session.communityId, session.userId, postIds, Date.now()),
	)
	await feedManager.onSeen(session.communityId, posts)
	return {
		posts: posts.map((p) => ({
			_id: p.id,
			impressions_count: p.impressions_count,
			reach_count: p.reach_count,
		})),
	}
}
