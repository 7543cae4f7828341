// Re-places the posts whose Redis placement was never confirmed (Redis failed after
// the commit, or the writer died first): their durable marks outlived the grace
// period (timelines/feed-marks.ts). A pass with no failed writes reads one empty
// index range and touches no post, so it runs often: a lost write is repaired within
// about GRACE_MS + 15 s.
import { log } from '../lib/log'
import { repairUnconfirmed } from '../timelines/feed-marks'

// Longer than a write's commit-to-confirmation path (a confirmation is flushed within 0.5 s).
const GRACE_MS = 15_000

export const feedsReconcileJob = {
	name: 'feeds-reconcile',
	pattern: '*/15 * * * * *',
	async run() {
		const posts = await repairUnconfirmed(GRACE_MS)
		if (posts.length > 0) log.info({ posts: posts.length }, 'unconfirmed posts re-placed in feeds')
	},
}
