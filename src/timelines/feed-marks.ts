// Durable marks of Redis placements not yet confirmed (DESIGN §2, §6; issue 17). A
// post write upserts its mark in its transaction (`markForFeeds`); after the commit the
// writer places the post in Redis and, when Redis took it, queues the mark for deletion;
// queued deletions go to Postgres in one statement every CONFIRM_EVERY_MS, off the
// request path. A mark left behind (Redis failed, the process died) is re-placed by
// `repairUnconfirmed` once it is older than the grace period: a pass costs what failed.
// A lost confirmation only means one harmless re-place (ZADD/ZREM are idempotent).
import { acrossCommunities, type Db, sql } from '../lib/db'
import { log } from '../lib/log'
import { perCommunity } from '../lib/per-community'
import {
	deleteFeedMarks,
	type FeedMark,
	insertNewFeedMarks,
	staleFeedMarks,
	upsertFeedMark,
} from './feed-marks-repo'
import { placePosts } from './placement'
import { loadPosts } from './repo'

const CONFIRM_EVERY_MS = 500
const REPAIR_BATCH = 500

export type { FeedMark }

/** In the writing transaction: the post is owed to Redis until confirmed. */
export function markForFeeds(
	tx: Db,
	post: { id: string; community_id: number },
	formerTopicIds: string[],
	formerWidgetIds: string[],
): Promise<FeedMark> {
	return upsertFeedMark(tx, post, formerTopicIds, formerWidgetIds)
}

/** markForFeeds for posts this transaction creates, in one statement. */
export function markNewForFeeds(
	tx: Db,
	posts: { id: string; community_id: number }[],
): Promise<FeedMark[]> {
	return insertNewFeedMarks(tx, posts)
}

let confirmed: FeedMark[] = []
let flushing: Promise<void> | null = null
let timer: ReturnType<typeof setTimeout> | null = null

/** Redis took the placement of this mark: its deletion is queued. */
export function confirmFeedMark(mark: FeedMark): void {
	confirmed.push(mark)
	timer ??= setTimeout(() => void flushFeedConfirmations(), CONFIRM_EVERY_MS)
	timer.unref?.()
}

/** Deletes the queued confirmed marks now (also called at shutdown and by tests). */
export async function flushFeedConfirmations(): Promise<void> {
	if (timer) clearTimeout(timer)
	timer = null
	await flushing
	const batch = confirmed
	confirmed = []
	flushing = deleteMarks(batch).catch((error) => {
		// Left for the repair pass, which re-places them harmlessly.
		log.warn({ err: error, marks: batch.length }, 'confirming feed marks failed')
	})
	await flushing
	flushing = null
}

/** Deletes the marks, one statement per community (sent together). */
async function deleteMarks(marks: FeedMark[]): Promise<void> {
	await perCommunity(
		marks,
		(m) => m.community_id,
		async (communityId, ofCommunity) => {
			await deleteFeedMarks(sql, communityId, ofCommunity)
			return []
		},
	)
}

/**
 * Re-places every post whose mark is older than `graceMs` and deletes the marks Redis
 * took; returns the ids of the posts re-placed (those whose write failed again keep
 * their marks for the next pass).
 */
export async function repairUnconfirmed(graceMs: number): Promise<string[]> {
	const repaired: string[] = []
	for (;;) {
		const marks = await acrossCommunities((tx) => staleFeedMarks(tx, graceMs, REPAIR_BATCH))
		const placed: FeedMark[] = []
		for (const [communityId, ofCommunity] of Map.groupBy(marks, (m) => m.community_id)) {
			// One read per community; each post is placed with its own former ids.
			const posts = new Map(
				(
					await loadPosts(
						sql,
						communityId,
						ofCommunity.map((m) => m.post_id),
					)
				).map((p) => [p.id, p]),
			)
			for (const mark of ofCommunity) {
				const post = posts.get(mark.post_id)
				if (post && (await placePosts([post], mark.former_topic_ids, mark.former_widget_ids)))
					placed.push(mark)
			}
		}
		await deleteMarks(placed)
		repaired.push(...placed.map((m) => m.post_id))
		// Whatever failed stays for the next pass rather than spinning here.
		if (marks.length < REPAIR_BATCH || placed.length < marks.length) return repaired
	}
}
