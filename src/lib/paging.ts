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
