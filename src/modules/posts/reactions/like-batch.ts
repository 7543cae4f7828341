// The likes of a group-committed batch (lib/group-commit.ts batchCommit) with set-based
// statements in two round trips, whatever the batch's size (its transaction opened by
// lib/db.ts pipelinedTransaction, so BEGIN and COMMIT ride with them):
// 1. BEGIN; the posts locked in id order (so that batches in flight together never
//    deadlock) and read (one statement: a batch is of one community, its statements
//    each name it, reactions/service.ts); the like rows of
//    the posts open to their likers (live, and public or their own: one statement of
//    inserts, removals and toggles); the likers and the creators; the posts' topics and
//    widgets (what the post.liked payloads need).
// 2. the activity groups (notifications' onPostLikesChanged, with their push rows and
//    `notifications.feed` events); every post's counter by its net change; the post.liked
//    events; COMMIT.
// The posts are locked before they are read, so the likes_count read is what the
// counter's UPDATE starts from: each like's count is known before step 2, and its event
// goes with the counters. A like of a post not open to its liker (a CM's like of a
// private post, a connection's of a connections post) is written after visibleTo has let
// it through, a round trip more, and so is a toggle that met a concurrent change of its
// row. Each like keeps the answer it would get alone: its count is the count as its own
// change left it (the batch's later changes taken back from the total), a back-dated
// like makes no activity and no event, a post it may not see is its own 404 (having
// written nothing).

import { commitNow, type Db } from '../../../lib/db'
import { notFound } from '../../../lib/errors'
import type { Outcome } from '../../../lib/group-commit'
import { openTo } from '../../../lib/visibility'
import { type CachedPost, feedManager, loadPostsLocked } from '../../../timelines'
import { recordEvents } from '../../../webhooks/outbox'
import type { Session } from '../../auth/session'
import { onPostLikesChanged } from '../../notifications/service'
import { findTopicsOfPosts } from '../../topics/repo'
import { presentUserForWebhook } from '../../users/present'
import { findUsersAndPostAuthors, type UserRow } from '../../users/repo'
import { findWidgetsOfPosts } from '../../widgets/repo'
import { visibleTo } from '../access'
import { isBackDated, writtenAt } from '../backdating'
import { postContexts, presentPostEvent } from '../present'
import { modeOf, outcomeOf, settleRacedToggles } from './like-rows'
import type { LikeInput } from './model'
import { countLikes, type LikeWrite, postLikeTarget, setLikes } from './repo'

export interface LikeRequest {
	session: Session
	postId: string
	input: LikeInput
}

export interface LikeAnswer {
	is_liked: boolean
	likes_count: number
}

/** A request past its checks, with what its like row did. */
interface Live {
	index: number
	session: Session
	post: CachedPost
	write: LikeWrite
	liked: boolean
	added: boolean
	delta: number
}

const pairOf = (postId: string, userId: number) => `${postId}:${userId}`

export async function likeTogether(
	tx: Db,
	requests: LikeRequest[],
): Promise<Outcome<LikeAnswer>[]> {
	const outcomes: Outcome<LikeAnswer>[] = []
	const now = Date.now()
	const writes: LikeWrite[] = requests.map((r) => ({
		targetId: r.postId,
		userId: r.session.userId,
		at: writtenAt(r.input.created_at, now),
		mode: modeOf(r.input),
	}))
	const postIds = [...new Set(requests.map((r) => r.postId))]
	const communityId = communityOf(requests)
	// Round trip 1. The lock is sent first; the like rows and the reads go behind it.
	const [posts, openWrites, users, topics, widgets] = await Promise.all([
		loadPostsLocked(tx, communityId, postIds)
			.execute()
			.then((rows) => new Map(rows.map((p) => [p.id, p]))),
		setLikes(tx, communityId, postLikeTarget, writes, true).execute(),
		findUsersAndPostAuthors(
			tx,
			communityId,
			requests.map((r) => r.session.userId),
			postIds,
		).execute(),
		findTopicsOfPosts(tx, communityId, postIds).execute(),
		findWidgetsOfPosts(tx, communityId, postIds).execute(),
	])
	const written = new Map(openWrites.map((c) => [pairOf(c.target_id, c.user_id), c.added]))

	const checked = await Promise.allSettled(
		requests.map(async (r, index) => {
			const post = await visibleTo(tx, r.session, posts.get(r.postId))
			return { index, session: r.session, post, write: writes[index] as LikeWrite }
		}),
	)
	const live: Live[] = []
	for (const [i, c] of checked.entries()) {
		if (c.status === 'fulfilled') live.push({ ...c.value, liked: false, added: false, delta: 0 })
		else if (written.has(pairOf(requests[i]?.postId ?? '', requests[i]?.session.userId ?? 0)))
			// setLikes writes only what visibleTo lets through; were it not so, fail the batch
			// (each like then runs alone) rather than answer 404 for a like written.
			throw new Error('a like was written to a post its liker may not see')
		else outcomes[i] = { ok: false, error: c.reason }
	}
	if (live.length === 0) return outcomes
	await writeLikesOfClosedPosts(tx, communityId, live, written)
	for (const l of live)
		Object.assign(l, outcomeOf(l.write.mode, written.get(pairOf(l.post.id, l.session.userId))))
	await settleRacedToggles(tx, communityId, postLikeTarget, live)

	const userById = new Map(users.map((u) => [u.id, u]))
	const news = new Set(live.filter((l) => l.added && !isBackDated(l.write.at, Date.now())))
	// A liker without a row: the batch fails and each like runs alone (its own 404).
	if ([...news].some((l) => !userById.has(l.session.userId))) throw notFound('User')

	const deltas = netDeltas(live)
	const counts = countsAsLeft(live, deltas)
	const contexts = postContexts(
		live.map((l) => l.post),
		topics,
		widgets,
	)
	// Round trip 2, COMMIT right behind it: the activity groups, then the counters (as a
	// like alone takes them; the posts are locked), then the events. Nothing after it
	// throws unless a statement failed (the transaction then rolled back).
	const sent = Promise.all([
		onPostLikesChanged(
			tx,
			live
				.filter((l) => l.added || !l.liked)
				.map((l) => ({
					communityId: l.session.communityId,
					actorId: l.session.userId,
					actor: userById.get(l.session.userId),
					postId: l.post.id,
					postAuthorId: l.post.user_id,
					postAuthor: userById.get(l.post.user_id),
					liked: l.liked,
					history: l.added && !news.has(l),
				})),
		),
		countLikes(tx, communityId, postLikeTarget, deltas).execute(),
		news.size > 0 &&
			recordEvents(
				tx,
				[...news].map((l) => {
					const event = presentPostEvent(l.post, {
						...(contexts.get(l.post.id) ?? { topics: [], widgets: [] }),
						creator: userById.get(l.post.user_id) ?? null,
					})
					return {
						communityId: l.session.communityId,
						event: 'post.liked',
						data: {
							...event,
							post: { ...event.post, likes_count: counts.get(l) },
							post_liked_by: presentUserForWebhook(userById.get(l.session.userId) as UserRow),
						},
					}
				}),
			),
	])
	commitNow(tx)
	await sent
	for (const l of live) {
		feedManager.onLike(tx, {
			communityId: l.session.communityId,
			userId: l.session.userId,
			postId: l.post.id,
			liked: l.liked,
		})
		outcomes[l.index] = { ok: true, value: { is_liked: l.liked, likes_count: counts.get(l) ?? 0 } }
	}
	return outcomes
}

/**
 * The likes the first setLikes left alone because their post is not open to the liker,
 * now that visibleTo has let them through: a round trip more, only when there are any.
 * Their outcomes join `written`.
 */
async function writeLikesOfClosedPosts(
	tx: Db,
	communityId: number,
	live: Live[],
	written: Map<string, boolean>,
) {
	const closed = live.filter((l) => !openTo(l.post, l.session))
	if (closed.length === 0) return
	const changed = await setLikes(
		tx,
		communityId,
		postLikeTarget,
		closed.map((l) => l.write),
	)
	for (const c of changed) written.set(pairOf(c.target_id, c.user_id), c.added)
}

/** Each post's net change (0 too: its answer needs the count). */
function netDeltas(live: Live[]) {
	const deltas = new Map<string, number>()
	for (const l of live) deltas.set(l.post.id, (deltas.get(l.post.id) ?? 0) + l.delta)
	return deltas
}

/**
 * Each like's count as its change left it: the total the counter's UPDATE will leave
 * (countLikes, from the likes_count read under the lock) less the changes after it.
 */
function countsAsLeft(live: Live[], deltas: Map<string, number>) {
	const totals = new Map<string, number>()
	for (const [id, delta] of deltas) {
		const post = live.find((l) => l.post.id === id)?.post
		totals.set(id, Math.max((post?.likes_count ?? 0) + delta, 0))
	}
	const after = new Map<string, number>()
	const counts = new Map<Live, number>()
	for (const l of [...live].reverse()) {
		const later = after.get(l.post.id) ?? 0
		counts.set(l, Math.max((totals.get(l.post.id) ?? 0) - later, 0))
		after.set(l.post.id, later + l.delta)
	}
	return counts
}

/** The one community of a batch's likes (reactions/service.ts groups them by community). */
function communityOf(requests: LikeRequest[]): number {
	const c = requests[0]?.session.communityId ?? 0
	if (requests.some((r) => r.session.communityId !== c))
		throw new Error('a batch of likes of several communities')
	return c
}
