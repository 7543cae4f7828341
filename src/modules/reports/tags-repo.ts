// SQL of report_tags: the tags a report is filed under, per community and entity type.
import type { Db } from '../../lib/db'

export interface TagRow {
	id: number
	entity_type: string
	name: string
	needs_reason: boolean
}

const columns = (db: Db) => db`id::float8 as id, entity_type, name, needs_reason`

export async function listTags(db: Db, communityId: number, entityType: string | null) {
	return db<TagRow[]>`
		select ${columns(db)} from report_tags
		where community_id = ${communityId} and not is_deleted
			and (${entityType}::text is null or entity_type = ${entityType})
		order by entity_type, id`
}

export async function hasAnyTag(db: Db, communityId: number): Promise<boolean> {
	const [row] = await db`select 1 from report_tags where community_id = ${communityId} limit 1`
	return row !== undefined
}

/** Inserts the tags (skipping names the entity type already has). */
export async function insertTags(
	db: Db,
	communityId: number,
	tags: Omit<TagRow, 'id'>[],
	now: number,
): Promise<TagRow[]> {
	if (tags.length === 0) return []
	return db<TagRow[]>`
		insert into report_tags (community_id, entity_type, name, needs_reason, created_at)
		select ${communityId}::int, t.entity_type, t.name, t.needs_reason::boolean, ${now}::bigint
		from unnest(${tags.map((t) => t.entity_type)}::text[], ${tags.map((t) => t.name)}::text[],
			${tags.map((t) => String(t.needs_reason))}::text[]) as t(entity_type, name, needs_reason)
		on conflict do nothing returning ${columns(db)}`
}

export async function findTag(db: Db, communityId: number, id: number): Promise<TagRow | null> {
	const [row] = await db<TagRow[]>`
		select ${columns(db)} from report_tags
		where community_id = ${communityId} and id = ${id} and not is_deleted`
	return row ?? null
}

export async function deleteTag(db: Db, communityId: number, id: number): Promise<boolean> {
	const rows = await db`
		update report_tags set is_deleted = true
		where community_id = ${communityId} and id = ${id} and not is_deleted returning id`
	return rows.length > 0
}

export async function tagsByIds(db: Db, communityId: number, ids: number[]): Promise<TagRow[]> {
	if (ids.length === 0) return []
	return db<TagRow[]>`
		select ${columns(db)} from report_tags where community_id = ${communityId} and id = any(${ids}::bigint[])`
}
