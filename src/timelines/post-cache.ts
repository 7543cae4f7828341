// The Redis post cache: a community's posts in their stored form (post-encoding.ts),
// read through read-through.ts, and the writers' calls that keep it true after a
// commit (through feed-manager.ts):
//
//   forgetPosts(communityId, postIds)      counters/pin/text changed (like, comment,
//                                           save count, pin): the next read
//                                           refills the post from Postgres.
//   setSeenCounts(communityId, counts)     impressions/reach changed (seen): updates
//                                           the cached post in place, no reload.
//
// Placing posts in feeds (placement.ts) drops or fills it as it places them. Postgres
// stays the source of truth; none of these throw on a Redis failure: a failed
// invalidation is counted and logged (lib/redis-errors.ts), and the cache expires (TTL)
// so it converges on Postgres anyway. Cluster: a community's post and user caches share
// {c<id>}; batches whose keys could span tags go through pipelineBySlot.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { quietly } from '../lib/redis-errors'
import { pipelineBySlot } from '../lib/redis-slots'
import {
	decodeFull,
	decodeView,
	encodePost,
	IMPRESSIONS,
	type PostView,
	REACH,
} from './post-encoding'
import { dropCached, readThrough } from './read-through'
import { type CachedPost, loadPosts } from './repo'

export const POST_TTL_SECONDS = 600

export async function forgetPosts(communityId: number, postIds: string[]): Promise<void> {
	if (postIds.length === 0) return
	await quietly('forgetPosts', () =>
		dropCached(
			communityId,
			postIds.map((id) => keys.postCache(communityId, id)),
			POST_TTL_SECONDS,
		),
	)
}

// Seen counters written into the cached post in place (seen is the busiest write; an
// eviction per call would keep busy posts reloading from Postgres). Both counters only
// grow, so the larger of cached and given wins: concurrent calls finishing out of
// order cannot lower them. The counters are not found by where presentSharedPost
// happens to put them: encodePost writes them itself as the value's fixed tail
// (post-encoding.ts), so the script only ever rewrites that tail. A cached value
// without the tail is dropped, as forgetPosts would.
redis.defineCommand('postSetSeen', {
	numberOfKeys: 1,
	lua: `local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local head, imp, reach = string.match(v, '^(.*)${IMPRESSIONS}(%d+)${REACH}(%d+)$')
if not head then redis.call('DEL', KEYS[1]) return -1 end
if tonumber(ARGV[1]) > tonumber(imp) then imp = ARGV[1] end
if tonumber(ARGV[2]) > tonumber(reach) then reach = ARGV[2] end
redis.call('SET', KEYS[1], head .. '${IMPRESSIONS}' .. imp .. '${REACH}' .. reach, 'KEEPTTL')
return 1`,
})

type SetSeen = (key: string, impressions: number, reach: number) => unknown

export interface SeenCounts {
	id: string
	impressions_count: number
	reach_count: number
}

/** Writes exact impressions/reach (as just committed) into the cached posts; uncached posts stay uncached. */
export async function setSeenCounts(communityId: number, counts: SeenCounts[]): Promise<void> {
	if (counts.length === 0) return
	const keyOf = (c: SeenCounts) => keys.postCache(communityId, c.id)
	await quietly('setSeenCounts', () =>
		pipelineBySlot(redis, counts, keyOf, (pipeline, c) =>
			(pipeline as unknown as { postSetSeen: SetSeen }).postSetSeen(
				keyOf(c),
				c.impressions_count,
				c.reach_count,
			),
		),
	)
}

/**
 * Drops the cached values of posts a writer changed (bumping their generations); the
 * next read fills them. A writer never stores its own copy: it was loaded before the
 * commit of a like or comment racing it, and would put an older count back.
 */
export async function dropPosts(posts: CachedPost[]): Promise<void> {
	const keyOf = (post: CachedPost) => keys.postCache(post.community_id, post.id)
	await pipelineBySlot(redis, posts, keyOf, (pipeline, post) => {
		const generation = keys.cacheGeneration(keyOf(post))
		pipeline.incr(generation).expire(generation, POST_TTL_SECONDS).del(keyOf(post))
	})
}

function cachedPosts<T>(
	communityId: number,
	ids: string[],
	decode: (raw: Buffer) => T,
): Promise<Map<string, T>> {
	const load = async (missing: string[]) =>
		(await loadPosts(sql, communityId, missing)).map((post) => [post.id, encodePost(post)] as const)
	return readThrough(ids, (id) => keys.postCache(communityId, id), load, POST_TTL_SECONDS, decode)
}

/** Posts by id from the cache, missing ones from Postgres (and then cached). Unknown ids are left out. */
export function getPosts(communityId: number, ids: string[]): Promise<Map<string, CachedPost>> {
	return cachedPosts(communityId, ids, decodeFull)
}

/** The pre-serialized feed form of posts (the hot path of feed pages). */
export function getPostViews(communityId: number, ids: string[]): Promise<Map<string, PostView>> {
	return cachedPosts(communityId, ids, decodeView)
}
