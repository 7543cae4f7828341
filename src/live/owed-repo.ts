// live_owed_resets (migrations/0140): the scopes owed a `reset` marker because Redis
// refused a publish after its commit. Every statement names its community, so on Citus
// each is routed to one shard; only the list of communities with marks spans them.
import { acrossCommunities, type Db } from '../lib/db'

export interface OwedReset {
	community_id: number
	stream: string
	failures: number
}

/**
 * A failed publish: the scope's mark, one row however many publishes failed (`excluded`:
 * Citus takes no function in an upsert's SET, the column default gives the time).
 */
export async function markOwed(db: Db, communityId: number, stream: string): Promise<void> {
	await db`
		insert into live_owed_resets (community_id, stream) values (${communityId}, ${stream})
		on conflict (community_id, stream)
		do update set failures = live_owed_resets.failures + 1, owed_at = excluded.owed_at`
}

/**
 * Communities holding marks no worker is paying now (the table is empty while Redis is
 * healthy): a read across communities, no lock (the claims are per community).
 */
export async function communitiesOwed(limit: number): Promise<number[]> {
	const rows = await acrossCommunities(
		(tx) => tx<{ community_id: number }[]>`
			select distinct community_id from live_owed_resets
			where claimed_until < now() limit ${limit}`,
	)
	return rows.map((r) => r.community_id)
}

/** Takes up to `limit` of the community's unclaimed marks for `leaseMs` (other workers skip them). */
export function claimOwed(
	db: Db,
	communityId: number,
	limit: number,
	leaseMs: number,
): Promise<OwedReset[]> {
	return db<OwedReset[]>`
		update live_owed_resets set claimed_until = now() + ${leaseMs} * interval '1 millisecond'
		where community_id = ${communityId} and stream in (
			select stream from live_owed_resets
			where community_id = ${communityId} and claimed_until < now()
			order by owed_at limit ${limit}
			for update skip locked)
		returning community_id, stream, failures`
}

/**
 * Deletes the marks whose resets Redis took — each only if no publish failed on its
 * scope since it was claimed (a later failure's row stays for the next pass).
 */
export async function deletePaid(db: Db, communityId: number, paid: OwedReset[]): Promise<void> {
	if (paid.length === 0) return
	await db`
		delete from live_owed_resets o
		using unnest(${paid.map((p) => p.stream)}::text[], ${paid.map((p) => p.failures)}::int[])
			as paid(stream, failures)
		where o.community_id = ${communityId} and o.stream = paid.stream
			and o.failures = paid.failures`
}

/** Gives back the claims whose resets Redis refused, for the next pass of any worker. */
export async function releaseOwed(db: Db, communityId: number, unpaid: OwedReset[]) {
	if (unpaid.length === 0) return
	await db`
		update live_owed_resets set claimed_until = '-infinity'
		where community_id = ${communityId} and stream = any(${unpaid.map((u) => u.stream)}::text[])`
}
