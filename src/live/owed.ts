// The reconciler of lost live events (DESIGN §2): pays the `reset` markers owed to scopes
// whose publish Redis refused after a commit (publish.ts marks them in live_owed_resets).
// A pass claims the marks of one community at a time with a lease (several workers
// never append the same reset), appends and publishes each reset through the publish
// script, and deletes a mark only once Redis took its reset; marks Redis refused again
// are given back for the next pass. While Redis is healthy the table is empty, so a
// pass reads nothing but the empty table: its cost follows the failures.
import { sql } from '../lib/db'
import { claimOwed, communitiesOwed, deletePaid, releaseOwed } from './owed-repo'
import { appendReset } from './publish'

const COMMUNITIES_PER_PASS = 100
const CLAIM_BATCH = 500
// Longer than a batch's appends take while Redis answers; a worker that dies holding
// claims delays those resets by this much.
const LEASE_MS = 30_000

/** One pass over the owed resets: how many were paid, and how many Redis refused again. */
export async function payOwedResets(): Promise<{ paid: number; refused: number }> {
	const total = { paid: 0, refused: 0 }
	// Every community is tried even after a refusal: on a cluster one shard may refuse
	// while the others take writes, and one stuck scope must not hold up the rest.
	for (const communityId of await communitiesOwed(COMMUNITIES_PER_PASS)) {
		const marks = await claimOwed(sql, communityId, CLAIM_BATCH, LEASE_MS)
		const outcomes = await Promise.allSettled(marks.map((m) => appendReset(m.stream)))
		const paid = marks.filter((_, n) => outcomes[n]?.status === 'fulfilled')
		const refused = marks.filter((_, n) => outcomes[n]?.status === 'rejected')
		await deletePaid(sql, communityId, paid)
		await releaseOwed(sql, communityId, refused)
		total.paid += paid.length
		total.refused += refused.length
	}
	return total
}
