// Drops Idempotency-Key answers older than their 24 hours (expired rows are already
// ignored by lookups; this only keeps the table small).
import { deleteExpiredKeys } from '../modules/idempotency/repo'

export const idempotencyCleanupJob = {
	name: 'idempotency-cleanup',
	pattern: '17 * * * *',
	run: async () => {
		await deleteExpiredKeys()
	},
}
