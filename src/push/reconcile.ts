// The push reconciler: Postgres says which deliveries are open; any that Redis holds
// in neither set (a Redis flush, a crash between a commit and its ZADD) is scheduled
// again. A `sending` row Redis lost is scheduled too, so a worker claims it and
// records it `unknown` (it may have reached the provider: never sent twice). Rows
// touched within `graceMs` are left alone; their worker may be between two writes.
import { sql } from '../lib/db'
import { member, schedule, scheduledFlags } from './queue'
import { openPage } from './repo'

const page = 1000

export async function reconcilePushes(graceMs: number): Promise<number> {
	let restored = 0
	let afterId = ''
	const cutoff = Date.now() - graceMs
	for (;;) {
		const rows = await openPage(sql, afterId, page)
		if (rows.length === 0) break
		afterId = rows[rows.length - 1].id
		const old = rows.filter((r) => r.updated_at < cutoff)
		const members = old.map((r) => member(r.community_id, r.id))
		const present = await scheduledFlags(members)
		const missing = old.flatMap((r, i) =>
			present[i] ? [] : [{ member: members[i], dueAt: r.status === 'sending' ? 0 : r.due_at }],
		)
		await schedule(missing)
		restored += missing.length
		if (rows.length < page) break
	}
	return restored
}
