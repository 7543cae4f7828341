// Pays the `reset` markers owed to live scopes whose publish Redis refused after a commit
// (src/live/owed.ts). Runs often because a pass while nothing failed reads one empty
// table; a failed publish is announced within about 2 s of Redis taking writes again.
// A pass that Redis still refuses throws, so job_failures_total and jobs_failing show it.
import { log } from '../lib/log'
import { payOwedResets } from '../live/owed'

export const liveResetsJob = {
	name: 'live-resets',
	pattern: '*/2 * * * * *',
	async run() {
		const { paid, refused } = await payOwedResets()
		if (paid > 0) log.info({ paid }, 'owed live resets paid')
		if (refused > 0) throw new Error(`${refused} owed live resets refused by Redis`)
	},
}
