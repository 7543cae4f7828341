// The one door through which modules tell the feed engine what happened (Mastodon's
// FeedManager is the model). A module names the event; the engine decides which keys
// change: fan-out jobs (written in the caller's transaction, so they are as durable
// as the write), the post and user caches, the community's sorted sets, viewer flags,
// block sets and connection feeds. Modules never choose among those themselves.
//
// Writes that change a post go through `onPostWritten` inside their transaction and
// call `afterCommit()` on what it returns; likes are told inside theirs (onLike), so a
// batch's likes reach Redis together; everything else is told after the commit.
// Nothing here throws on a Redis failure (logged; caches expire, and a post write's
// durable mark lets the reconciler re-place what Redis did not take).
import { afterCommitTogether, type Db } from '../lib/db'
import { reachesFollowers } from '../lib/visibility'
import { followAuthor, unfollowAuthor } from './connection-feed'
import { enqueueFanOut, enqueueFanOutRemoval, enqueueFanOuts, fanOutCtes } from './fanout'
import { confirmFeedMark, type FeedMark, markForFeeds, markNewForFeeds } from './feed-marks'
import { newFeedMarksCte } from './feed-marks-repo'
import { forgetPersonalised } from './personalised'
import { placeCreated, placePosts, topicsChanged } from './placement'
import { forgetPosts, type SeenCounts, setSeenCounts } from './post-cache'
import type { CachedPost, Visibility } from './repo'
import { forgetUsers } from './user-cache'
import { forgetBlocks, setViewerFlags } from './viewer-state'

/** What a post was before this write (null for a new post). */
export interface FormerPost {
	visibility: Visibility
	is_deleted: boolean
	topic_ids: string[]
	widget_ids: string[]
}

export interface AfterCommit {
	afterCommit(): Promise<void>
}

/** Which fan-out job (if any) a post write needs: followers' feeds gain or lose it. */
async function fanOutFor(tx: Db, post: CachedPost, former: FormerPost): Promise<void> {
	if (post.is_deleted) {
		if (!former.is_deleted) await enqueueFanOutRemoval(tx, post)
		return
	}
	if (former.visibility === post.visibility) return
	if (reachesFollowers(post)) await enqueueFanOut(tx, post)
	else await enqueueFanOutRemoval(tx, post)
}

/**
 * A post was created, edited, re-scoped or deleted. `post` is its row as this
 * transaction leaves it (loaded once, at the end); it is what the cache gets after
 * the commit — no second read.
 */
async function onPostWritten(
	tx: Db,
	post: CachedPost,
	former: FormerPost | null = null,
): Promise<AfterCommit> {
	if (!former) return onPostsCreated(tx, [post])
	// Both sent at once (one round trip when the caller's transaction pipelines).
	const [, mark] = await Promise.all([
		fanOutFor(tx, post, former),
		markForFeeds(tx, post, former.topic_ids, former.widget_ids),
	])
	return {
		async afterCommit() {
			// The mark carries every former id still unconfirmed, not only this write's.
			if (await placePosts([post], mark.former_topic_ids, mark.former_widget_ids))
				confirmFeedMark(mark)
		},
	}
}

/**
 * Posts this transaction creates (a batch of new posts, or one), as written: their
 * fan-out jobs and feed marks in one statement each, sent together; after the commit
 * they are cached and placed together (placeCreated: one Redis round trip per community,
 * one feed version bump), and their marks confirmed.
 */
async function onPostsCreated(tx: Db, posts: CachedPost[]): Promise<AfterCommit> {
	const [, marks] = await Promise.all([enqueueFanOuts(tx, posts), markNewForFeeds(tx, posts)])
	return { afterCommit: () => placeAndConfirm(posts, marks) }
}

/** Caches and places posts just created; their marks are confirmed when Redis took them. */
async function placeAndConfirm(posts: CachedPost[], marks: FeedMark[]): Promise<void> {
	if (await placeCreated(posts)) for (const mark of marks) confirmFeedMark(mark)
}

/**
 * onPostsCreated for posts that ONE statement writes without a transaction (a batch of
 * plain new posts, modules/posts/post-statement.ts): the fan-out jobs' and feed marks'
 * CTEs for that statement (it must read `fanout_notified` and returns `feed_mark`'s
 * rows), and `placed`, to call with those marks once it has run: what afterCommit does.
 */
function postsCreatedCtes(db: Db, posts: CachedPost[]) {
	return {
		ctes: db`${fanOutCtes(db, posts)}, ${newFeedMarksCte(db, posts)}`,
		placed: (marks: FeedMark[]) => placeAndConfirm(posts, marks),
	}
}

export interface LikeChange {
	communityId: number
	userId: number
	postId: string
	liked: boolean
}

/**
 * The Redis work of a batch of likes, sent at once whatever the batch's size: each post's
 * cached copy dropped once (one MULTI per community, one feed version bump) and the
 * likers' flags in one pipeline (in the order the likes came here).
 */
async function applyLikes(likes: LikeChange[]): Promise<void> {
	const postsOf = new Map<number, Set<string>>()
	for (const { communityId, postId } of likes)
		postsOf.set(communityId, (postsOf.get(communityId) ?? new Set()).add(postId))
	await Promise.all([
		...[...postsOf].map(([communityId, postIds]) => forgetPosts(communityId, [...postIds])),
		setViewerFlags(
			'liked',
			likes.map(({ userId, postId, liked }) => ({ userId, postId, on: liked })),
		),
	])
}

export const feedManager = {
	onPostWritten,
	onPostsCreated,
	postsCreatedCtes,

	/** Counters, pin or comments of posts changed: the next read refills them. */
	onPostsChanged: (communityId: number, postIds: string[]) => forgetPosts(communityId, postIds),

	/** Impressions and reach as just committed (the busiest write: updated in place). */
	onSeen: (communityId: number, counts: SeenCounts[]) => setSeenCounts(communityId, counts),

	/**
	 * A like or unlike in `tx`: after the commit the post's cached copy is dropped and the
	 * liker's flag set, together with every other like of the transaction (applyLikes).
	 */
	onLike(tx: Db, like: LikeChange) {
		afterCommitTogether(tx, applyLikes, like)
	},

	onSave: (userId: number, postId: string, saved: boolean) =>
		setViewerFlags('saved', [{ userId, postId, on: saved }]),

	/** `followerId` now sees `authorId`'s connection posts (users of the community). */
	async onFollow(communityId: number, followerId: number, authorId: number) {
		await Promise.all([
			followAuthor(communityId, followerId, authorId),
			forgetPersonalised([followerId]),
		])
	},

	/** The connection between a and b (users of the community) ended (both directions). */
	async onDisconnect(communityId: number, a: number, b: number) {
		await Promise.all([
			unfollowAuthor(communityId, a, b),
			unfollowAuthor(communityId, b, a),
			forgetPersonalised([a, b]),
		])
	},

	/** A block between a and b (users of the community) was added: each disappears from the other's feeds. */
	async onBlock(communityId: number, a: number, b: number) {
		await forgetBlocks([a, b])
		await feedManager.onDisconnect(communityId, a, b)
	},

	onUnblock: (a: number, b: number) => forgetBlocks([a, b]),

	/** The viewer hid or reported a post: it leaves their feeds (their exclusions set reloads). */
	onHiddenFor: (userId: number) => forgetBlocks([userId]),

	/**
	 * Moderation held posts back or let them go (posts.held): their cached copies reload
	 * and every kept page is recomputed; the rule drops held posts at read, as it does
	 * deleted ones, for all but CMs.
	 */
	onPostsHeld: (communityId: number, postIds: string[]) => forgetPosts(communityId, postIds),

	/** Names, images or deleted state of users changed. */
	onUsersChanged: (communityId: number, userIds: number[]) => forgetUsers(communityId, userIds),

	/**
	 * Topics were enabled, disabled or deleted: their posts are re-placed in every
	 * feed. `unlinkedPostIds` are posts whose links Postgres no longer has (deletion).
	 */
	onTopicsChanged: (communityId: number, topicIds: string[], unlinkedPostIds: string[] = []) =>
		topicsChanged(communityId, topicIds, unlinkedPostIds),
}
