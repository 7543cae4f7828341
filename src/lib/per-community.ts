// Work that spans communities, written so each statement names one (DESIGN §21: on
// Citus, one shard). A claim finds the communities with claimable rows first, in one
// statement over all of them without a lock (acrossCommunities), then locks rows one
// community at a time (`where community_id = $c ... for update skip locked`): Citus
// refuses a row lock across shards. A batch of rows of several communities (an outbox's
// claimed members) is read or written with one statement per community, concurrently.
import type postgres from 'postgres'
import { acrossCommunities } from './db'

/**
 * Up to `limit` rows claimed by `claim(communityId, left)`, community by community, from
 * those `find` lists (in its order); `find` runs inside acrossCommunities.
 */
export async function claimPerCommunity<T>(
	limit: number,
	find: (tx: postgres.TransactionSql) => Promise<number[]>,
	claim: (communityId: number, left: number) => Promise<T[]>,
): Promise<T[]> {
	const communities = await acrossCommunities(find)
	const claimed: T[] = []
	for (const communityId of communities) {
		const left = limit - claimed.length
		if (left <= 0) break
		claimed.push(...(await claim(communityId, left)))
	}
	return claimed
}

/** `run` once per community of `items` (grouped by `communityOf`), concurrently; results joined. */
export async function perCommunity<T, R>(
	items: T[],
	communityOf: (item: T) => number,
	run: (communityId: number, items: T[]) => Promise<R[]>,
): Promise<R[]> {
	const groups = new Map<number, T[]>()
	for (const item of items) {
		const c = communityOf(item)
		const group = groups.get(c)
		if (group) group.push(item)
		else groups.set(c, [item])
	}
	const results = await Promise.all([...groups].map(([c, group]) => run(c, group)))
	return results.flat()
}
