// "A page of rows and the total that match": the one way list repositories page.
// The total rides along the page (count(*) over ()), so a page costs one query; only a
// page past the end, which has no row to carry it, asks for the count on its own —
// the total stays true there too (a client paging too far still learns the size).
import type postgres from 'postgres'
import type { Db } from './db'

type Fragment = postgres.Fragment

export interface Paged<T> {
	rows: T[]
	total: number
}

export interface PagedSelect {
	/** The select list, e.g. sql`id, name`. */
	columns: Fragment
	/** `from … where …` of the rows that count. */
	from: Fragment
	orderBy: Fragment
	limit: number
	offset: number
}

export async function paged<T extends object>(db: Db, q: PagedSelect): Promise<Paged<T>> {
	const rows = await db<(T & { paged_total: number })[]>`
		select ${q.columns}, count(*) over ()::int as paged_total ${q.from}
		order by ${q.orderBy} limit ${q.limit} offset ${q.offset}`
	if (rows.length === 0) {
		if (q.offset === 0) return { rows: [], total: 0 }
		const [count] = await db<{ total: number }[]>`select count(*)::int as total ${q.from}`
		return { rows: [], total: count?.total ?? 0 }
	}
	const total = rows[0]?.paged_total ?? 0
	return { rows: rows.map(({ paged_total: _, ...row }) => row as unknown as T), total }
}
