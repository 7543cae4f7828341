// Widgets: SQL only. One widget per company per community is the unique index
// widgets_company; inserts use ON CONFLICT so a race never aborts the transaction.
import type { Db } from '../../lib/db'
import { paged } from '../../lib/paged'

export interface WidgetRow {
	id: string
	community_id: number
	parent_entity_id: string | null
	parent_entity_type: string | null
	company_id: string | null
	metadata: Record<string, unknown>
	meta: unknown
	created_by: number | null
	created_at: number
	updated_at: number
}

/** The columns of a WidgetRow: the bigint ones (its creator's id, the times) read as JS numbers. */
const widgetColumns = (db: Db) => db`
	id, community_id, parent_entity_id, parent_entity_type, company_id, metadata, meta,
	created_by::float8 as created_by, created_at::float8 as created_at, updated_at::float8 as updated_at`

/** A row to insert: updated_at starts as created_at. */
export type NewWidget = Omit<WidgetRow, 'updated_at'>

/** Inserts the widget; null when another widget already holds its company_id. */
export async function insertWidget(db: Db, w: NewWidget): Promise<WidgetRow | null> {
	const [row] = await db<WidgetRow[]>`
		insert into widgets (id, community_id, parent_entity_id, parent_entity_type, company_id, metadata, meta,
			created_by, created_at, updated_at)
		values (${w.id}, ${w.community_id}, ${w.parent_entity_id}, ${w.parent_entity_type}, ${w.company_id},
			${db.json(w.metadata as never)}, ${w.meta === null || w.meta === undefined ? null : db.json(w.meta as never)},
			${w.created_by}, ${w.created_at}, ${w.created_at})
		on conflict (community_id, company_id) where company_id is not null do nothing
		returning ${widgetColumns(db)}`
	return row ?? null
}

export async function findWidget(
	db: Db,
	communityId: number,
	id: string,
): Promise<WidgetRow | null> {
	const [row] = await db<
		WidgetRow[]
	>`select ${widgetColumns(db)} from widgets where community_id = ${communityId} and id = ${id}`
	return row ?? null
}

export async function findWidgetsByIds(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<WidgetRow[]> {
	if (ids.length === 0) return []
	return db<
		WidgetRow[]
	>`select ${widgetColumns(db)} from widgets where community_id = ${communityId} and id = any(${ids}::text[])`
}

/**
 * The widgets linked to the community's posts `postIds` (findWidgetsByIds by the posts,
 * before they are read).
 */
export function findWidgetsOfPosts(db: Db, communityId: number, postIds: string[]) {
	return db<WidgetRow[]>`
		select ${widgetColumns(db)} from widgets
		where community_id = ${communityId} and id = any(array(select widget_id from post_widgets
			where community_id = ${communityId} and post_id = any(${postIds}::text[])))`
}

export async function findWidgetByCompany(
	db: Db,
	communityId: number,
	companyId: string,
): Promise<WidgetRow | null> {
	const [row] = await db<WidgetRow[]>`
		select ${widgetColumns(db)} from widgets where community_id = ${communityId} and company_id = ${companyId}`
	return row ?? null
}

export interface WidgetChanges {
	metadata?: Record<string, unknown>
	company_id?: string | null
	meta?: unknown
	parent_entity_id?: string | null
	parent_entity_type?: string | null
}

/** Applies the changes; null when the new company_id is taken by another widget. */
export async function updateWidget(
	db: Db,
	communityId: number,
	id: string,
	c: WidgetChanges,
): Promise<WidgetRow | null> {
	const set: Record<string, unknown> = { updated_at: Date.now() }
	if (c.metadata !== undefined) set.metadata = db.json(c.metadata as never)
	if (c.company_id !== undefined) set.company_id = c.company_id
	if (c.meta !== undefined) set.meta = c.meta === null ? null : db.json(c.meta as never)
	if (c.parent_entity_id !== undefined) set.parent_entity_id = c.parent_entity_id
	if (c.parent_entity_type !== undefined) set.parent_entity_type = c.parent_entity_type
	try {
		const [row] = await db<WidgetRow[]>`
			update widgets set ${db(set)} where community_id = ${communityId} and id = ${id} returning ${widgetColumns(db)}`
		return row ?? null
	} catch (error) {
		if ((error as { code?: string }).code === '23505') return null
		throw error
	}
}

export type WidgetSearch =
	| { field: 'id' | 'parent_entity_id' | 'parent_entity_type' }
	| { metadataKey: string }

export async function searchWidgets(
	db: Db,
	communityId: number,
	search: WidgetSearch | null,
	value: string,
	limit: number,
	offset: number,
): Promise<{ rows: WidgetRow[]; total: number }> {
	const where = !search
		? db`true`
		: 'metadataKey' in search
			? db`metadata->>${search.metadataKey} = ${value}`
			: db`${db(search.field)} = ${value}`
	return paged<WidgetRow>(db, {
		columns: widgetColumns(db),
		from: db`from widgets where community_id = ${communityId} and ${where}`,
		orderBy: db`created_at desc, id desc`,
		limit,
		offset,
	})
}
