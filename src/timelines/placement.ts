// The writers that place posts in feeds after a write changes what a feed shows (made
// by feed-manager.ts, AFTER the transaction commits: a cache filled from an uncommitted
// read would be stale):
//
//   placePosts(posts, formerTopicIds?, formerWidgetIds?)
//                                           a post's row, topics or widgets changed:
//                                           drops its cached value (the next read
//                                           fills it) and re-places it in feeds.
//   placeCreated(posts)                    posts just created: cached and placed,
//                                           one pipeline per community.
//   refreshPosts(communityId, postIds)     the same, loading the posts first.
//   topicsChanged(communityId, topicIds)   a topic was enabled, disabled or deleted:
//                                           re-places its posts in every feed at once.
//
// None of these throw on a Redis failure: a failed write is counted and logged
// (lib/redis-errors.ts), and the caches expire (TTL) so they converge on Postgres
// anyway. Cluster: a community's keys share {c<id>}, so placeCreated's pipeline keeps
// to one hash tag.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { quietly } from '../lib/redis-errors'
import { execOrThrow } from '../lib/redis-slots'
import { indexPost, queueIndex } from './index-post'
import { bumpFeedVersion } from './page-cache'
import { dropPosts, POST_TTL_SECONDS } from './post-cache'
import { encodePost } from './post-encoding'
import type { CacheFill } from './read-through'
import { type CachedPost, loadPosts, postIdsInTopics, topicStates } from './repo'

/**
 * Re-places these posts (as just written) in every feed and drops their cached copies.
 * True when Redis took it all.
 */
export function placePosts(
	posts: CachedPost[],
	formerTopicIds: string[] = [],
	formerWidgetIds: string[] = [],
): Promise<boolean> {
	return quietly('placePosts', async () => {
		await dropPosts(posts)
		await Promise.all(posts.map((post) => indexPost(post, formerTopicIds, formerWidgetIds)))
		// After the change is in Redis: a page computed from before it is not kept as current.
		await Promise.all([...new Set(posts.map((p) => p.community_id))].map(bumpFeedVersion))
	})
}

/**
 * Places posts their writer just created, each community's in ONE pipeline (its keys
 * share a hash tag, so also on a Cluster): every post cached (see below), then placed in
 * its sets, then the community's feed version bumped — Redis runs a pipeline's commands
 * in order, so a reader that finds a post in a set finds it cached, and a page computed
 * before the placement is not kept as current (bumpFeedVersion's INCR, queued here).
 *
 * Caching a writer's copy is safe here where it otherwise is not (dropPosts): nothing
 * could change a post before its creating commit, and any writer after it bumps the
 * generation, which makes this fill a no-op (cacheFill with no generation seen). So the
 * first feed reads after a post need no Postgres. True when Redis took it all.
 */
export function placeCreated(posts: CachedPost[]): Promise<boolean> {
	return quietly('placeCreated', async () => {
		await Promise.all(
			[...Map.groupBy(posts, (p) => p.community_id)].map(([communityId, list]) => {
				const pipeline = redis.pipeline()
				for (const post of list) {
					const key = keys.postCache(communityId, post.id)
					;(pipeline as unknown as { cacheFill: CacheFill }).cacheFill(
						key,
						keys.cacheGeneration(key),
						'',
						encodePost(post),
						POST_TTL_SECONDS,
					)
					queueIndex(pipeline, post)
				}
				pipeline.incr(keys.feedVersion(communityId))
				return execOrThrow(pipeline)
			}),
		)
	})
}

/** Refills the cache of these posts from Postgres and re-places them in every feed. */
export async function refreshPosts(communityId: number, postIds: string[]): Promise<void> {
	await quietly('refreshPosts', async () => {
		for (let i = 0; i < postIds.length; i += 500)
			await placePosts(await loadPosts(sql, communityId, postIds.slice(i, i + 500)))
	})
}

/** Topics changed state or were deleted; `alsoPostIds`: posts whose links to them are gone. */
export async function topicsChanged(
	communityId: number,
	topicIds: string[],
	alsoPostIds: string[] = [],
): Promise<void> {
	if (topicIds.length === 0) return
	await quietly('topicsChanged', async () => {
		// Posts of a deleted topic are only known to its sorted set now.
		const listed = await Promise.all(
			topicIds.map((id) => redis.zrange(keys.topicFeed(communityId, id), 0, -1)),
		)
		const fromDb = await postIdsInTopics(sql, communityId, topicIds)
		await redis.hdel(keys.catalog(communityId), ...topicIds.map((id) => `t:${id}`))
		const postIds = [...new Set([...listed.flat(), ...fromDb, ...alsoPostIds])]
		const stillThere = new Set((await topicStates(sql, communityId, topicIds)).map((t) => t.id))
		const gone = topicIds.filter((id) => !stillThere.has(id))
		if (gone.length > 0) await redis.del(...gone.map((id) => keys.topicFeed(communityId, id)))
		await refreshPosts(communityId, postIds)
		// Again: a read racing the change may have re-filled the old state meanwhile.
		await redis.hdel(keys.catalog(communityId), ...topicIds.map((id) => `t:${id}`))
		await bumpFeedVersion(communityId)
	})
}
