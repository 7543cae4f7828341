// Re-places every post written in the last few minutes in the Redis feeds and cache.
// Posts reach Redis right after their transaction commits; if that write failed
// (Redis briefly down), this repairs it within a minute. Idempotent (ZADD/SET).
import { log } from '../lib/log'
import { reconcileRecentPosts } from '../timelines/rebuild'

const WINDOW_MS = 3 * 60_000

export const feedsReconcileJob = {
	name: 'feeds-reconcile',
	pattern: '* * * * *',
	async run() {
		const posts = await reconcileRecentPosts(WINDOW_MS)
		if (posts > 0) log.debug({ posts }, 'recent posts re-placed in feeds')
	},
}
