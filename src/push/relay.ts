// The push relay: moves deliveries committed with their activity into the Redis
// schedule. It wakes on the pg_notify of enqueueActivityPushes (delivered by Postgres
// only after commit) and sweeps every second for anything a lost notification left.
import { sql } from '../lib/db'
import { log } from '../lib/log'
import { pushChannel } from './outbox'
import { member, schedule } from './queue'
import { takeUnqueued } from './repo'

const batch = 5000

export function startPushRelay(onScheduled: () => void, sweepMs = 1000): () => Promise<void> {
	let running = false
	let again = false
	let stopped = false

	async function drain() {
		if (running) {
			again = true
			return
		}
		running = true
		try {
			do {
				again = false
				const rows = await takeUnqueued(sql, batch)
				// A crash between the update and this ZADD leaves rows the reconciler restores.
				await schedule(rows.map((r) => ({ member: member(r.community_id, r.id), dueAt: r.due_at })))
				if (rows.length > 0) onScheduled()
				if (rows.length === batch) again = true
			} while (again && !stopped)
		} catch (error) {
			log.error({ err: error }, 'push relay failed')
		} finally {
			running = false
		}
	}

	const listening = sql
		.listen(
			pushChannel,
			() => void drain(),
			() => void drain(),
		)
		.catch((error) => {
			log.error({ err: error }, 'push relay could not listen; sweeping only')
			return null
		})
	const timer = setInterval(() => void drain(), sweepMs)

	return async () => {
		stopped = true
		clearInterval(timer)
		const listener = await listening
		await listener?.unlisten().catch(() => {})
	}
}
