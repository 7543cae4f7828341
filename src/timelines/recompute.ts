// Recomputing personalised feeds in bulk: the queue behind `should_recompute`, the
// croner job over users active in the last 24 hours, and scripts/recompute.ts.
import { acrossCommunities, sql } from '../lib/db'
import { jobFailed, jobSucceeded } from '../lib/job-health'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { startWorkerLoop } from '../lib/worker-loop'
import { recomputePersonalised } from './personalised'
import { activeUsersAfter, usersAfter } from './personalised-repo'
import { communityIds } from './repo'

const BATCH = 500
const POLL_MS = 250

type Page = (afterId: number, limit: number) => Promise<{ user_id: number; community_id: number }[]>

async function recomputeAll(page: Page): Promise<number> {
	let after = 0
	let done = 0
	for (;;) {
		const users = await page(after, BATCH)
		for (const u of users) {
			try {
				await recomputePersonalised(u.user_id, u.community_id)
				jobSucceeded('recompute')
				done++
			} catch (error) {
				jobFailed('recompute', error, { userId: u.user_id })
			}
		}
		if (users.length < BATCH) return done
		after = users[users.length - 1]!.user_id
	}
}

/** Users who read a feed in the last 24 hours (the RECOMPUTE_CRON job). */
export const recomputeActiveUsers = (now = Date.now()) =>
	recomputeAll((after, limit) =>
		// A page of every community's readers (a read without locks): the job's population.
		acrossCommunities((tx) => activeUsersAfter(tx, now - 86_400_000, after, limit)),
	)

/** Every user of one community, or of all communities (`null`), one community at a time. */
export async function recomputeCommunity(communityId: number | null): Promise<number> {
	let done = 0
	for (const id of communityId === null ? await communityIds(sql) : [communityId])
		done += await recomputeAll((after, limit) => usersAfter(sql, id, after, limit))
	return done
}

/** Takes queued users (`should_recompute=true`) and recomputes them, a few at a time. */
export async function drainRecomputeQueue(): Promise<number> {
	const members = (await redis.spop(keys.recomputeQueue(), 50)) as string[]
	for (const member of members) {
		const [communityId, userId] = member.split(':').map(Number)
		try {
			await recomputePersonalised(userId!, communityId!)
			jobSucceeded('recompute')
		} catch (error) {
			jobFailed('recompute', error, { member })
		}
	}
	return members.length
}

/** The worker loop (lib/worker-loop.ts) over the queue, polling it every POLL_MS when empty. */
export function startRecomputeConsumer(): () => Promise<void> {
	const loop = startWorkerLoop({
		pass: async () => (await drainRecomputeQueue()) > 0,
		onError: (error) => jobFailed('recompute', error, { where: 'queue' }),
		idleMs: POLL_MS,
	})
	return () => loop.stop()
}
