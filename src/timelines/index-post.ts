// Placing a post in the community's sorted sets. The sets hold only what every
// viewer may see: the universal and widget feeds hold public, undeleted posts not
// hidden by disabled topics; a topic feed holds public, undeleted posts of that
// topic (a disabled topic is skipped at read time). Per-viewer rules (blocks)
// are applied when reading. `setsFor` is that rule's only home: indexing one post
// and rebuilding a whole community both follow it.
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { execOrThrow, type Pipeline } from '../lib/redis-slots'
import { listedForAll } from '../lib/visibility'
import type { CachedPost } from './repo'

export interface SetPlace {
	key: string
	/** The post belongs in this set now (else it must not be there). */
	member: boolean
}

type Placed = Pick<
	CachedPost,
	'community_id' | 'visibility' | 'is_deleted' | 'hidden' | 'topic_ids' | 'widget_ids'
>

// The placement stream keeps about this many entries (a personalised read folds in at
// most FRESH_LIMIT of them; older ones are in the viewer's stored ranking or beyond it).
export const PLACEMENTS_KEPT = 5000

type Placement = Pick<CachedPost, 'id' | 'user_id' | 'is_pinned' | 'created_at' | 'topic_ids'>

/** What the personalised engine needs of a placed post to rank it without loading it. */
export function placementEntry(post: Placement): string {
	return `${post.id} ${post.user_id} ${post.is_pinned ? 1 : 0} ${post.created_at} ${post.topic_ids.join(',')}`
}

/** A placement entry read back (the inverse of placementEntry). */
export function parsePlacement(entry: string): Placement {
	const [id = '', userId, pinned, createdAt, topicIds = ''] = entry.split(' ')
	return {
		id,
		user_id: Number(userId),
		is_pinned: pinned === '1',
		created_at: Number(createdAt),
		topic_ids: topicIds === '' ? [] : topicIds.split(','),
	}
}

const listed = (post: Placed) => listedForAll(post)
const inUniversal = (post: Placed) => listed(post) && !post.hidden

/** Every community set the post names (universal, its topics, its widgets) and whether it belongs there. */
export function setsFor(post: Placed): SetPlace[] {
	const c = post.community_id
	return [
		{ key: keys.universalFeed(c), member: inUniversal(post) },
		...post.topic_ids.map((id) => ({ key: keys.topicFeed(c, id), member: listed(post) })),
		...post.widget_ids.map((id) => ({ key: keys.widgetFeed(c, id), member: inUniversal(post) })),
	]
}

/** Adds or removes the post in every set it belongs to; `formerTopicIds` are left after an edit. */
export async function indexPost(
	post: CachedPost,
	formerTopicIds: string[] = [],
	formerWidgetIds: string[] = [],
): Promise<void> {
	// Every key of one community shares its hash tag: one pipeline, also on a Cluster.
	const pipeline = redis.pipeline()
	queueIndex(pipeline, post, formerTopicIds, formerWidgetIds)
	await execOrThrow(pipeline)
}

/** indexPost's commands, queued on a pipeline that carries other commands of the post's community. */
export function queueIndex(
	pipeline: Pipeline,
	post: CachedPost,
	formerTopicIds: string[] = [],
	formerWidgetIds: string[] = [],
): void {
	const c = post.community_id
	const left = [
		...formerTopicIds
			.filter((id) => !post.topic_ids.includes(id))
			.map((id) => keys.topicFeed(c, id)),
		...formerWidgetIds
			.filter((id) => !post.widget_ids.includes(id))
			.map((id) => keys.widgetFeed(c, id)),
	]
	for (const { key, member } of setsFor(post))
		if (member) pipeline.zadd(key, post.created_at, post.id)
		else pipeline.zrem(key, post.id)
	for (const key of left) pipeline.zrem(key, post.id)
	// Every (re)placement in the universal feed, in order: new posts reach personalised feeds from here.
	if (inUniversal(post))
		pipeline.xadd(
			keys.placements(c),
			'MAXLEN',
			'~',
			PLACEMENTS_KEPT,
			'*',
			'e',
			placementEntry(post),
		)
}
