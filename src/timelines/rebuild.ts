// Rebuilding a community's feeds and caches from Postgres (after a Redis loss or a
// flush, or an import). Drops every key in the community's slot and the per-user derived
// keys of its members (viewer flags, block sets, connection and personalised feeds: all
// rebuilt lazily on the next read), then
// re-adds every post to the sorted sets in pipelined batches. The post cache fills on
// read (a value stored here could be older than a like committed meanwhile).
// Where the time goes: reading the posts. Only what places a post is read, in one
// set-based query (repo.ts eachPlacementBatch); the next batch is read while the current
// one is written, and a batch is written as one ZADD per set with all its members
// rather than one per post and set.
import { replica } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { deleteKeys, execOrThrow, scanKeys } from '../lib/redis-slots'
import { setsFor } from './index-post'
import { bumpFeedVersion } from './page-cache'
import { communityUserIds, eachPlacementBatch, type PlacedPost } from './repo'

const BATCH = 1000
/** Posts read from Postgres per batch (fewer round trips; a batch is one ZADD per set). */
const PLACEMENT_BATCH = 5000

async function dropCommunityKeys(communityId: number): Promise<void> {
	// SCAN on every master: on a cluster the client's SCAN would see one node only.
	await deleteKeys(redis, await scanKeys(redis, `*{c${communityId}}*`))
	const userIds = await communityUserIds(replica, communityId)
	for (let i = 0; i < userIds.length; i += BATCH) {
		const batch = userIds
			.slice(i, i + BATCH)
			.flatMap((id) => [
				keys.viewerFlags(id),
				keys.viewerFlagsVersion(id),
				keys.viewerBlocks(id),
				keys.connLive(id),
				keys.persFeed(id),
				keys.persMeta(id),
			])
		await deleteKeys(redis, batch)
	}
}

/** The batch's sorted-set entries as one ZADD per set (every set is in the community's slot). */
async function placeBatch(posts: PlacedPost[]): Promise<void> {
	const members = new Map<string, (string | number)[]>()
	for (const post of posts)
		for (const { key, member } of setsFor(post)) {
			if (!member) continue
			const list = members.get(key)
			if (list) list.push(post.created_at, post.id)
			else members.set(key, [post.created_at, post.id])
		}
	const pipeline = redis.pipeline()
	for (const [key, list] of members) pipeline.zadd(key, ...list)
	await execOrThrow(pipeline)
}

/**
 * Rebuilds one community; returns the number of posts read. `drop: false` only adds
 * (used when the sets are known to be gone, e.g. after a Redis flush).
 */
export async function rebuildCommunity(
	communityId: number,
	options: { drop?: boolean } = {},
): Promise<number> {
	if (options.drop !== false) await dropCommunityKeys(communityId)
	// One batch's ZADDs in flight while the next batch is read.
	let placing: Promise<void> = Promise.resolve()
	const total = await eachPlacementBatch(replica, communityId, PLACEMENT_BATCH, async (posts) => {
		await placing
		placing = placeBatch(posts)
		// Awaited with the next batch or below; a failure must not surface as unhandled meanwhile.
		placing.catch(() => {})
	})
	await placing
	await redis.set(keys.feedBuilt(communityId), String(Date.now()))
	await bumpFeedVersion(communityId)
	return total
}

/**
 * Called on a read that found the community's build marker missing (Redis lost its
 * data): one reader rebuilds (lease in Redis), the others read what is there meanwhile.
 */
export async function ensureBuilt(communityId: number): Promise<void> {
	const lease = await redis.set(keys.feedBuilding(communityId), '1', 'EX', 120, 'NX')
	if (lease !== 'OK') return
	try {
		await rebuildCommunity(communityId, { drop: false })
	} finally {
		await redis.del(keys.feedBuilding(communityId))
	}
}
