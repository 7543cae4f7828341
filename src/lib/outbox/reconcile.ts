// The reconciler of an outbox: Postgres says which rows are open; any that Redis holds
// in neither set (a Redis flush or restart, a crash between a commit and its ZADD) is
// scheduled again. A row touched within `graceMs` is left alone, since its worker may
// be between the database write and the Redis move.
import type { Entry, Schedule } from './queue'

export interface OpenRow {
	id: string
	updatedAt: number
	/** where it goes back into the schedule */
	entry: Entry
}

/** Open rows in id order after `afterId`, at most `limit`. */
export type OpenPage = (afterId: string, limit: number) => Promise<OpenRow[]>

const page = 1000

export async function reconcileOnce(
	schedule: Schedule,
	open: OpenPage,
	graceMs: number,
): Promise<number> {
	let restored = 0
	let afterId = ''
	const cutoff = Date.now() - graceMs
	for (;;) {
		const rows = await open(afterId, page)
		if (rows.length === 0) break
		afterId = rows[rows.length - 1].id
		const old = rows.filter((r) => r.updatedAt < cutoff)
		const present = await schedule.scheduledFlags(old.map((r) => r.entry.member))
		const missing = old.flatMap((r, i) => (present[i] ? [] : [r.entry]))
		await schedule.schedule(missing)
		restored += missing.length
		if (rows.length < page) break
	}
	return restored
}
