// The reconciler: Postgres says which deliveries are pending; any of them that Redis
// holds in neither set (a Redis flush or restart, a crash between a commit and its
// ZADD) is scheduled again. A row touched within `graceMs` is left alone, since its
// worker may be between the database write and the Redis move.
import { sql } from '../lib/db'
import { member, schedule, scheduledFlags } from './queue'
import { queuedPendingPage } from './repo'

const page = 1000

export async function reconcileOnce(graceMs: number): Promise<number> {
	let restored = 0
	let afterId = ''
	const cutoff = Date.now() - graceMs
	for (;;) {
		const rows = await queuedPendingPage(sql, afterId, page)
		if (rows.length === 0) break
		afterId = rows[rows.length - 1].id
		const old = rows.filter((r) => r.updated_at < cutoff)
		const members = old.map((r) => member(r.webhook_id, r.id))
		const present = await scheduledFlags(members)
		const missing = old.flatMap((r, i) =>
			present[i] ? [] : [{ member: members[i], dueAt: r.due_at }],
		)
		await schedule(missing)
		restored += missing.length
		if (rows.length < page) break
	}
	return restored
}
