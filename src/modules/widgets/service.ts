// Widgets: company widgets (one per company_id per community, enforced by the
// database) created directly or through a post attachment of type 5.
import { type Db, sql } from '../../lib/db'
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { paging } from '../../lib/paging'
import { isCm, type Session } from '../auth/session'
import { POLL_WIDGET } from './model'
import { presentWidget } from './present'
import {
	findWidget,
	findWidgetByCompany,
	insertWidget,
	searchWidgets,
	updateWidget,
	type WidgetRow,
	type WidgetSearch,
} from './repo'

const companyFields = [
	'company_id',
	'company_name',
	'company_image_url',
	'company_description',
] as const

function companyIdOf(metadata: Record<string, unknown>): string | null {
	const value = metadata.company_id
	if (value === undefined || value === null || value === '') return null
	if (typeof value !== 'string' && typeof value !== 'number')
		throw badRequest('metadata.company_id must be a string')
	return String(value)
}

export interface WidgetParent {
	id: string
	type: string
}

/**
 * The company widget of an attachment of type 5: `entity_id` names an existing widget
 * of this community (404 otherwise); `company_id` (+ company fields) reuses the
 * company's widget or creates it. Runs inside the caller's transaction; a concurrent
 * creation of the same company widget is resolved by ON CONFLICT and a re-read.
 */
export async function resolveCompanyWidget(
	tx: Db,
	communityId: number,
	attachmentMeta: Record<string, unknown> | null | undefined,
	parent?: WidgetParent,
	createdBy?: number,
): Promise<WidgetRow> {
	const meta = attachmentMeta ?? {}
	const entityId = meta.entity_id ?? meta.entityId
	if (entityId !== undefined && entityId !== null && entityId !== '') {
		if (typeof entityId !== 'string') throw badRequest('attachment_meta.entity_id must be a string')
		const widget = await findWidget(tx, communityId, entityId)
		if (!widget) throw notFound('Widget')
		return widget
	}
	const companyId = companyIdOf(meta)
	if (!companyId)
		throw badRequest('attachment_meta of a company widget needs entity_id or company_id')
	const existing = await findWidgetByCompany(tx, communityId, companyId)
	if (existing) return existing
	const metadata: Record<string, unknown> = {}
	for (const field of companyFields) {
		if (meta[field] !== undefined && meta[field] !== null) metadata[field] = String(meta[field])
	}
	metadata.company_id = companyId
	const created = await insertWidget(tx, {
		id: newId(),
		community_id: communityId,
		parent_entity_id: parent?.id ?? null,
		parent_entity_type: parent?.type ?? null,
		company_id: companyId,
		metadata,
		meta: null,
		created_by: createdBy ?? null,
		created_at: Date.now(),
	})
	if (created) return created
	const winner = await findWidgetByCompany(tx, communityId, companyId)
	if (!winner) throw conflict('Company widget is being created, retry')
	return winner
}

export interface WidgetInput {
	metadata?: unknown
	meta?: unknown
	parent_entity_id?: string
	parent_entity_type?: string
}

/** metadata must be a JSON object. */
function plainMetadata(raw: unknown): Record<string, unknown> | undefined {
	if (raw === undefined) return undefined
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
		throw badRequest('metadata must be an object')
	}
	return raw as Record<string, unknown>
}

export async function createWidget(session: Session, input: WidgetInput) {
	const metadata = plainMetadata(input.metadata) ?? {}
	const companyId = companyIdOf(metadata)
	if (companyId) metadata.company_id = companyId
	const widget = await insertWidget(sql, {
		id: newId(),
		community_id: session.communityId,
		parent_entity_id: input.parent_entity_id || null,
		parent_entity_type: input.parent_entity_type || null,
		company_id: companyId,
		metadata,
		meta: input.meta ?? null,
		created_by: session.userId,
		created_at: Date.now(),
	})
	if (!widget) throw conflict(`A widget for company ${companyId} already exists`)
	return { widget: presentWidget(widget) }
}

export async function editWidget(session: Session, widgetId: string, input: WidgetInput) {
	const current = await findWidget(sql, session.communityId, widgetId)
	if (!current) throw notFound('Widget')
	if (current.created_by !== session.userId && !isCm(session)) throw forbidden()
	// A feed poll's widget (polls/feed-poll.ts) holds its options and rules as voted on.
	if ((current.meta as { type?: unknown } | null)?.type === POLL_WIDGET)
		throw badRequest('A poll changes through PUT /poll/:poll_id only')
	let companyId: string | null | undefined
	let metadata: Record<string, unknown> | undefined
	const changes = plainMetadata(input.metadata)
	if (changes !== undefined) {
		metadata = { ...current.metadata, ...changes }
		companyId = companyIdOf(metadata)
		if (companyId) metadata.company_id = companyId
	}
	const updated = await updateWidget(sql, session.communityId, widgetId, {
		metadata,
		company_id: companyId,
		meta: input.meta,
		parent_entity_id: input.parent_entity_id,
		parent_entity_type: input.parent_entity_type,
	})
	if (!updated) throw conflict(`A widget for company ${companyId} already exists`)
	return { widget: presentWidget(updated) }
}

/** Reads a value written with literal double quotes, as the spec requires: `"x"` → `x`. */
function unquote(name: string, raw: string): string {
	const match = /^"(.*)"$/s.exec(raw.trim())
	if (!match)
		throw badRequest(`${name} must be wrapped in double quotes, e.g. ${name}="metadata.company_id"`)
	return match[1] as string
}

function searchOf(key: string): WidgetSearch {
	if (key === '_id' || key === 'id') return { field: 'id' }
	if (key === 'parent_entity_id' || key === 'parent_entity_type') return { field: key }
	const metadataKey = /^metadata\.([A-Za-z0-9_]{1,64})$/.exec(key)?.[1]
	if (!metadataKey) throw badRequest(`Unsupported search_key ${key}`)
	return { metadataKey }
}

export interface WidgetQuery {
	search_key?: string
	search_value?: string
	page?: number
	page_size?: number
}

export async function listWidgets(session: Session, query: WidgetQuery) {
	if ((query.search_key === undefined) !== (query.search_value === undefined)) {
		throw badRequest('search_key and search_value go together')
	}
	const search =
		query.search_key === undefined ? null : searchOf(unquote('search_key', query.search_key))
	const value = query.search_value === undefined ? '' : unquote('search_value', query.search_value)
	const p = paging(query.page, query.page_size)
	const { rows, total } = await searchWidgets(
		sql,
		session.communityId,
		search,
		value,
		p.pageSize,
		p.offset,
	)
	return {
		widgets: rows.map(presentWidget),
		total_count: total,
		page: p.page,
		page_size: p.pageSize,
	}
}
