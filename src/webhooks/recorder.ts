// Batches attempt outcomes: every attempt that finishes while a write is in flight
// joins the next one, so under load one statement and one commit cover many
// deliveries, and when idle an outcome is written at once (lib/flush-while-writing.ts).
import { sql } from '../lib/db'
import { flushWhileWriting } from '../lib/flush-while-writing'
import { type AttemptRecord, recordAttempts } from './repo'

/** Resolves with the delivery's new status, or null if another worker recorded it first. */
export function createRecorder(maxBatch = 500): (record: AttemptRecord) => Promise<string | null> {
	return flushWhileWriting(async (batch: AttemptRecord[]) => {
		const statuses = await recordAttempts(sql, batch)
		return batch.map((record) => statuses.get(record.outcome.deliveryId) ?? null)
	}, maxBatch)
}
