// Paging as the list routes take it: `page` (from 1) and `page_size` query integers,
// page_size capped at 100 (a larger one is served as 100, not refused).
import { t } from 'elysia'

export const MAX_PAGE_SIZE = 100

/** The two query fields, to spread into a route's query schema. */
export const pageFields = {
	page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
	page_size: t.Optional(t.Integer({ minimum: 1 })),
}

export const PageQuery = t.Object(pageFields)

export interface Page {
	page: number
	pageSize: number
	offset: number
}

export function paging(
	page: number | undefined,
	pageSize: number | undefined,
	fallback = 10,
): Page {
	const size = Math.min(Math.floor(pageSize ?? fallback), MAX_PAGE_SIZE)
	const number = Math.floor(page ?? 1)
	return { page: number, pageSize: size, offset: (number - 1) * size }
}

/** Paging from a raw query (strings; the schema has not run yet: NaN pages come out NaN). */
export const pagingFromRaw = (raw: Record<string, unknown>, fallback = 10): Page =>
	paging(
		raw.page === undefined ? undefined : Number(raw.page),
		raw.page_size === undefined ? undefined : Number(raw.page_size),
		fallback,
	)
