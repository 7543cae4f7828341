// Placing a post in the community's sorted sets. The sets hold only what every
// viewer may see: the universal and widget feeds hold public, undeleted posts not
// hidden by disabled topics; a topic feed holds public, undeleted posts of that
// topic (a disabled topic is skipped at read time). Per-viewer rules (blocks)
// are applied when reading.
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import type { CachedPost } from './repo'

export function isListed(post: CachedPost): boolean {
	return post.visibility === 'public' && !post.is_deleted
}

/** Adds or removes the post in every set it belongs to; `formerTopicIds` are left after an edit. */
export async function indexPost(
	post: CachedPost,
	formerTopicIds: string[] = [],
	formerWidgetIds: string[] = [],
): Promise<void> {
	const c = post.community_id
	const listed = isListed(post)
	const inUniversal = listed && !post.hidden
	const ops: Promise<unknown>[] = []
	const put = (key: string, on: boolean) =>
		ops.push(on ? redis.zadd(key, post.created_at, post.id) : redis.zrem(key, post.id))
	put(keys.universalFeed(c), inUniversal)
	for (const topicId of post.topic_ids) put(keys.topicFeed(c, topicId), listed)
	for (const widgetId of post.widget_ids) put(keys.widgetFeed(c, widgetId), inUniversal)
	for (const topicId of formerTopicIds)
		if (!post.topic_ids.includes(topicId)) put(keys.topicFeed(c, topicId), false)
	for (const widgetId of formerWidgetIds)
		if (!post.widget_ids.includes(widgetId)) put(keys.widgetFeed(c, widgetId), false)
	await Promise.all(ops)
}
