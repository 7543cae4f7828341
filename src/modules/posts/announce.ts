// "New posts available" for live readers of the universal and connection feeds (blocks
// and whom each follows are applied per reader, src/live): told when a post is created,
// or when a CM approves a pending one (pending.ts). Sent now, not awaited (publishLive
// never throws).
import { listedForAll, reachesFollowers } from '../../lib/visibility'
import { liveScopes, publishLive } from '../../live'
import type { CachedPost } from '../../timelines'

export function announceNew(post: CachedPost, history = false): void {
	if (history) return
	const news = { type: 'post.new', data: { post_id: post.id, author_id: post.user_id } }
	if (listedForAll(post)) void publishLive(liveScopes.universal(post.community_id), news)
	if (reachesFollowers(post)) void publishLive(liveScopes.connection(post.community_id), news)
}
