// The relay of an outbox: moves rows committed by their writers into the Redis
// schedule. It wakes on the pg_notify the writer's statement sends (delivered by
// Postgres only after commit) and sweeps every second for anything a lost
// notification left.
import { sql } from '../db'
import { log } from '../log'
import type { Entry, Schedule } from './queue'

export interface RelaySpec {
	/** for log lines: 'webhook', 'push' */
	name: string
	channel: string
	/** marks up to `limit` unscheduled rows as queued and returns them as schedule entries */
	take: (limit: number) => Promise<Entry[]>
	batch: number
}

export function startRelay(
	spec: RelaySpec,
	schedule: Schedule,
	onScheduled: () => void,
	sweepMs = 1000,
): () => Promise<void> {
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
				const entries = await spec.take(spec.batch)
				// A crash between the update and this ZADD leaves rows the reconciler restores.
				await schedule.schedule(entries)
				if (entries.length > 0) onScheduled()
				if (entries.length === spec.batch) again = true
			} while (again && !stopped)
		} catch (error) {
			log.error({ err: error }, `${spec.name} relay failed`)
		} finally {
			running = false
		}
	}

	const listening = sql
		.listen(
			spec.channel,
			() => void drain(),
			() => void drain(),
		)
		.catch((error) => {
			log.error({ err: error }, `${spec.name} relay could not listen; sweeping only`)
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
