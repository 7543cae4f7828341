// croner schedules run by the worker. Each job is { name, pattern, run }.
import { fanOutPruneJob } from './fanout-prune'
import { feedsReconcileJob } from './feeds-reconcile'
import { idempotencyCleanupJob } from './idempotency-cleanup'
import { liveResetsJob } from './live-resets'
import { recomputeJob } from './recompute'
import { refreshTokenCleanupJob } from './refresh-token-cleanup'
import { topicCountsJob } from './topic-counts'
import { webhookLogJob } from './webhook-log'
export interface Job {
	name: string
	pattern: string
	run: () => Promise<void>
}

export const jobs: Job[] = [
	recomputeJob,
	webhookLogJob,
	feedsReconcileJob,
	idempotencyCleanupJob,
	fanOutPruneJob,
	refreshTokenCleanupJob,
	topicCountsJob,
	liveResetsJob,
]
