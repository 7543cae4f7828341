// Keeps fanout_jobs small: a finished job is only history once every follower feed
// holds (or lost) its post, so finished rows older than a day are deleted hourly.
// Failing and parked jobs stay: /ready and jobs_failing{kind} count them.
import { acrossCommunities } from '../lib/db'
import { log } from '../lib/log'
import { pruneFinishedFanOutJobs } from '../timelines/connection-repo'

const keepHours = 24

export const fanOutPruneJob = {
	name: 'fanout-prune',
	pattern: '41 * * * *',
	async run() {
		// Every community's finished jobs at once: a delete that takes no row lock to claim.
		const removed = await acrossCommunities((tx) => pruneFinishedFanOutJobs(tx, keepHours))
		if (removed > 0) log.info({ removed }, 'finished fan-out jobs pruned')
	},
}
