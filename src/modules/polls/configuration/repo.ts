// SQL of community configurations.
import type { Db } from '../../../lib/db'

export async function findConfiguration(
	db: Db,
	communityId: number,
	type: string,
): Promise<Record<string, unknown> | null> {
	const [row] = await db<{ value: Record<string, unknown> }[]>`
		select value from community_configurations where community_id = ${communityId} and type = ${type}`
	return row?.value ?? null
}

/** Merges `patch` into the stored value under a row lock, so two PATCHes never lose a field. */
export async function lockConfiguration(
	db: Db,
	communityId: number,
	type: string,
	now: number,
): Promise<Record<string, unknown>> {
	await db`
		insert into community_configurations (community_id, type, value, updated_at)
		values (${communityId}, ${type}, '{}', ${now})
		on conflict (community_id, type) do nothing`
	const [row] = await db<{ value: Record<string, unknown> }[]>`
		select value from community_configurations
		where community_id = ${communityId} and type = ${type} for update`
	return row.value
}

export async function saveConfiguration(
	db: Db,
	communityId: number,
	type: string,
	value: Record<string, unknown>,
	now: number,
): Promise<void> {
	await db`
		update community_configurations set value = ${db.json(value as never)}, updated_at = ${now}
		where community_id = ${communityId} and type = ${type}`
}
