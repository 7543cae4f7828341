// Rebuilding a community's feeds and caches from Postgres (after a Redis loss or a
// flush). Drops every key in the community's slot and the per-user derived keys of
// its members (viewer flags, block sets, connection feeds: all reloaded lazily), then
// re-adds every post to the sorted sets and the post cache in pipelined batches.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { isListed } from './index-post'
import { storePosts } from './post-cache'
import { communityPostIds, communityUserIds, loadPosts } from './repo'

const BATCH = 1000

async function deleteMatching(pattern: string): Promise<number> {
	let cursor = '0'
	let deleted = 0
	do {
		const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
		cursor = next
		if (found.length > 0) deleted += await redis.del(...found)
	} while (cursor !== '0')
	return deleted
}

async function dropCommunityKeys(communityId: number): Promise<void> {
	await deleteMatching(`*{c${communityId}}*`)
	const userIds = await communityUserIds(sql, communityId)
	for (let i = 0; i < userIds.length; i += BATCH) {
		const batch = userIds
			.slice(i, i + BATCH)
			.flatMap((id) => [
				keys.viewerFlags(id, 'liked'),
				keys.viewerFlags(id, 'saved'),
				keys.viewerBlocks(id),
				keys.connLive(id),
			])
		await Promise.all(batch.map((key) => redis.del(key)))
	}
}

/** Rebuilds one community; returns the number of posts read. */
export async function rebuildCommunity(communityId: number): Promise<number> {
	await dropCommunityKeys(communityId)
	let after = ''
	let total = 0
	for (;;) {
		const ids = await communityPostIds(sql, communityId, after, BATCH)
		if (ids.length === 0) break
		after = ids[ids.length - 1] as string
		total += ids.length
		const posts = await loadPosts(sql, communityId, ids)
		const pipeline = redis.pipeline()
		for (const post of posts) {
			if (!isListed(post)) continue
			if (!post.hidden) pipeline.zadd(keys.universalFeed(communityId), post.created_at, post.id)
			for (const topicId of post.topic_ids)
				pipeline.zadd(keys.topicFeed(communityId, topicId), post.created_at, post.id)
			if (!post.hidden)
				for (const widgetId of post.widget_ids)
					pipeline.zadd(keys.widgetFeed(communityId, widgetId), post.created_at, post.id)
		}
		await pipeline.exec()
		await storePosts(posts)
	}
	return total
}
