// The likes of a group-committed batch (lib/group-commit.ts batchCommit) with set-based
// statements: whatever the batch's size, a few statements in five round trips — the
// posts, locked first in id order (so that batches in flight together never deadlock);
// the like rows (one statement: inserts, removals, toggles) beside the reads the
// post.liked payloads need; the activity groups (notifications' onPostLikesChanged)
// then every post's counter by its net change; the push rows and the events, one
// insert each. Each like keeps the answer it would get alone: its count is the count as
// its own change left it (the batch's later changes taken back from the total), a
// back-dated like makes no activity and no event, a post it may not see is its own 404
// (found before anything is written).
import { recordEvents } from '../../../events/outbox'
import type { Db } from '../../../lib/db'
import { notFound } from '../../../lib/errors'
import type { Outcome } from '../../../lib/group-commit'
import { type CachedPost, feedManager, loadPosts } from '../../../timelines'
import type { Session } from '../../auth/session'
import { onPostLikesChanged } from '../../notifications/service'
import { presentUserForWebhook } from '../../users/present'
import { findUsersByIds, type UserRow } from '../../users/repo'
import { visibleTo } from '../access'
import { isBackDated, writtenAt } from '../backdating'
import { loadPostContexts, presentPostEvent } from '../present'
import type { LikeInput } from './model'
import {
	countLikes,
	type LikeMode,
	lockCounted,
	postLikeTarget,
	removeLikes,
	setLikes,
} from './repo'

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
	at: number
	mode: LikeMode
	liked: boolean
	added: boolean
	delta: number
}

const modeOf = (input: LikeInput): LikeMode =>
	input.value === true ? 'set' : input.value === false ? 'unset' : 'toggle'

const pairOf = (postId: string, userId: number) => `${postId}:${userId}`

export async function likeTogether(
	tx: Db,
	requests: LikeRequest[],
): Promise<Outcome<LikeAnswer>[]> {
	const outcomes: Outcome<LikeAnswer>[] = []
	const now = Date.now()
	const posts = await postsOf(tx, requests)
	const checked = await Promise.allSettled(
		requests.map(async (r, index) => {
			const at = writtenAt(r.input.created_at, now)
			const post = await visibleTo(
				tx,
				r.session,
				posts.get(pairOf(r.postId, r.session.communityId)),
			)
			return { index, session: r.session, post, at, mode: modeOf(r.input) }
		}),
	)
	const live: Live[] = []
	for (const [i, c] of checked.entries()) {
		if (c.status === 'rejected') outcomes[i] = { ok: false, error: c.reason }
		else live.push({ ...c.value, liked: false, added: false, delta: 0 })
	}
	if (live.length === 0) return outcomes

	// The reads only a like that is news needs, sent with the like rows: the likers and
	// the creators, the topics and widgets of the posts that may be liked.
	const mayLike = live.filter((l) => l.mode !== 'unset')
	const [changed, users, contexts] = await Promise.all([
		setLikes(
			tx,
			postLikeTarget,
			live.map((l) => ({ targetId: l.post.id, userId: l.session.userId, at: l.at, mode: l.mode })),
		),
		findUsersByIds(tx, [...new Set(mayLike.flatMap((l) => [l.session.userId, l.post.user_id]))]),
		loadPostContexts(
			tx,
			mayLike.map((l) => l.post),
		),
	])
	const outcome = new Map(changed.map((c) => [pairOf(c.target_id, c.user_id), c.added]))
	const raced: Live[] = []
	for (const l of live) {
		const added = outcome.get(pairOf(l.post.id, l.session.userId))
		if (added === true) Object.assign(l, { liked: true, added: true, delta: 1 })
		else if (added === false) Object.assign(l, { liked: false, delta: -1 })
		else if (l.mode === 'set') l.liked = true
		else if (l.mode === 'toggle') raced.push(l)
	}
	// A toggle that found the like and could not remove it: another transaction changed it
	// meanwhile. Removed by a statement that sees that change; counted only if it removed it.
	if (raced.length > 0) {
		const removed = new Set(
			(
				await removeLikes(
					tx,
					postLikeTarget,
					raced.map((l) => ({ targetId: l.post.id, userId: l.session.userId })),
				)
			).map((r) => pairOf(r.target_id, r.user_id)),
		)
		for (const l of raced) if (removed.has(pairOf(l.post.id, l.session.userId))) l.delta = -1
	}

	const userById = new Map(users.map((u) => [u.id, u]))
	const news = new Set(live.filter((l) => l.added && !isBackDated(l.at, Date.now())))
	// A liker without a row: the batch fails and each like runs alone (its own 404).
	if ([...news].some((l) => !userById.has(l.session.userId))) throw notFound('User')

	// The activity groups, then the counters (as a like alone takes them; the posts are locked).
	const activities = onPostLikesChanged(
		tx,
		live
			.filter((l) => l.added || !l.liked)
			.map((l) => ({
				communityId: l.session.communityId,
				actorId: l.session.userId,
				actor: userById.get(l.session.userId),
				postId: l.post.id,
				postAuthorId: l.post.user_id,
				liked: l.liked,
				history: l.added && !news.has(l),
			})),
	)
	activities.catch(() => {})
	const deltas = new Map<string, number>()
	for (const l of live) deltas.set(l.post.id, (deltas.get(l.post.id) ?? 0) + l.delta)
	const totals = new Map(
		(await countLikes(tx, postLikeTarget, deltas)).map((r) => [r.id, r.likes_count]),
	)
	// Each like's count as its change left it: the total less the changes after it.
	const after = new Map<string, number>()
	const counts = new Map<Live, number>()
	for (const l of [...live].reverse()) {
		const later = after.get(l.post.id) ?? 0
		counts.set(l, Math.max((totals.get(l.post.id) ?? 0) - later, 0))
		after.set(l.post.id, later + l.delta)
	}

	await Promise.all([
		activities,
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
 * The posts of the batch, locked first (lockCounted), then read: one statement per
 * community, by `postId:communityId`.
 */
async function postsOf(tx: Db, requests: LikeRequest[]) {
	const idsOf = new Map<number, Set<string>>()
	for (const r of requests)
		idsOf.set(r.session.communityId, (idsOf.get(r.session.communityId) ?? new Set()).add(r.postId))
	const [, ...read] = await Promise.all([
		lockCounted(
			tx,
			postLikeTarget,
			requests.map((r) => r.postId),
		),
		...[...idsOf].map(([communityId, ids]) => loadPosts(tx, communityId, [...ids])),
	])
	return new Map(read.flat().map((p) => [pairOf(p.id, p.community_id), p]))
}
