// SQL of cohorts and their members. Their attachments to chatrooms (and the member
// reads those need) are chatrooms/cohort-repo.ts.
import type { Db } from '../../lib/db'

export interface CohortRow {
	cohort_id: number
	name: string
	community_id: number
	total_members: number
}

// The community as a value in the count, not c.community_id: Citus routes a correlated
// subquery to one shard only by a value of its own.
const cohortColumns = (db: Db, communityId: number) => db`
	c.id::float8 as cohort_id, c.name, c.community_id,
	(select count(*)::int from cohort_members m
		where m.community_id = ${communityId} and m.cohort_id = c.id) as total_members`

export async function insertCohort(
	db: Db,
	communityId: number,
	name: string,
	now: number,
): Promise<number> {
	const [row] = await db<{ id: number }[]>`
		insert into cohorts (community_id, name, created_at, updated_at)
		values (${communityId}, ${name}, ${now}, ${now}) returning id::float8 as id`
	return row.id
}

export async function findCohort(
	db: Db,
	communityId: number,
	cohortId: number,
): Promise<CohortRow | null> {
	const [row] = await db<CohortRow[]>`
		select ${cohortColumns(db, communityId)} from cohorts c
		where c.id = ${cohortId} and c.community_id = ${communityId}`
	return row ?? null
}

/** Locks the cohort row so membership changes and attachments of one cohort queue up. */
export async function listCohorts(
	db: Db,
	communityId: number,
	limit: number,
	offset: number,
): Promise<{ cohorts: CohortRow[]; total: number }> {
	const [cohorts, [count]] = await Promise.all([
		db<CohortRow[]>`
			select ${cohortColumns(db, communityId)} from cohorts c where c.community_id = ${communityId}
			order by c.id limit ${limit} offset ${offset}`,
		db<{ n: number }[]>`select count(*)::int as n from cohorts where community_id = ${communityId}`,
	])
	return { cohorts, total: count.n }
}

export async function renameCohort(
	db: Db,
	communityId: number,
	cohortId: number,
	name: string,
	now: number,
) {
	await db`
		update cohorts set name = ${name}, updated_at = ${now}
		where community_id = ${communityId} and id = ${cohortId}`
}

export async function deleteCohortRow(db: Db, communityId: number, cohortId: number) {
	await db`delete from cohorts where community_id = ${communityId} and id = ${cohortId}`
}

export async function addMembers(
	db: Db,
	communityId: number,
	cohortId: number,
	userIds: number[],
	now: number,
) {
	if (userIds.length === 0) return
	await db`
		insert into cohort_members (community_id, cohort_id, user_id, added_at)
		select ${communityId}, ${cohortId}, unnest(${userIds}::int8[]), ${now}
		on conflict do nothing`
}

/** Removes members; returns the user ids that were members. */
export async function removeMembers(
	db: Db,
	communityId: number,
	cohortId: number,
	userIds: number[],
): Promise<number[]> {
	if (userIds.length === 0) return []
	const rows = await db<{ user_id: number }[]>`
		delete from cohort_members
		where community_id = ${communityId} and cohort_id = ${cohortId}
			and user_id = any(${userIds}::int8[])
		returning user_id::float8 as user_id`
	return rows.map((r) => r.user_id)
}

export async function pageMemberIds(
	db: Db,
	communityId: number,
	cohortId: number,
	limit: number,
	offset: number,
): Promise<number[]> {
	const rows = await db<{ user_id: number }[]>`
		select user_id::float8 as user_id from cohort_members
		where community_id = ${communityId} and cohort_id = ${cohortId}
		order by added_at, user_id limit ${limit} offset ${offset}`
	return rows.map((r) => r.user_id)
}
