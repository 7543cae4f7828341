// Personalised recompute of the users active in the last 24 hours (RECOMPUTE_CRON).
import { config } from '../config'
import { log } from '../lib/log'
import { recomputeActiveUsers } from '../timelines/recompute'
import type { Job } from './index'

export const recomputeJob: Job = {
	name: 'personalised-recompute',
	pattern: config.RECOMPUTE_CRON,
	run: async () => {
		const started = Date.now()
		const users = await recomputeActiveUsers()
		log.info({ users, ms: Date.now() - started }, 'personalised feeds recomputed')
	},
}
