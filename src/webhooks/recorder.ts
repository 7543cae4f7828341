// Batches attempt outcomes: every attempt that finishes while a write is in flight
// joins the next one, so under load one statement and one commit cover many
// deliveries, and when idle an outcome is written at once.
import { sql } from '../lib/db'
import { type AttemptRecord, recordAttempts } from './repo'

interface Waiting extends AttemptRecord {
	resolve: (status: string | null) => void
	reject: (error: unknown) => void
}

export function createRecorder(maxBatch = 500) {
	let queue: Waiting[] = []
	let writing = false

	async function flush() {
		if (writing || queue.length === 0) return
		writing = true
		const batch = queue.slice(0, maxBatch)
		queue = queue.slice(batch.length)
		try {
			const statuses = await recordAttempts(sql, batch)
			for (const w of batch) w.resolve(statuses.get(w.outcome.deliveryId) ?? null)
		} catch (error) {
			for (const w of batch) w.reject(error)
		} finally {
			writing = false
			if (queue.length > 0) void flush()
		}
	}

	/** Resolves with the delivery's new status, or null if another worker recorded it first. */
	return (record: AttemptRecord) =>
		new Promise<string | null>((resolve, reject) => {
			queue.push({ ...record, resolve, reject })
			queueMicrotask(() => void flush())
		})
}
