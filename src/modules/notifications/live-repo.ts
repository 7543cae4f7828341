// The unread badges of many recipients of one community at once (one statement), for the
// live `me` scope.
import type { Db } from '../../lib/db'

export async function unreadCounts(
	db: Db,
	communityId: number,
	recipientIds: number[],
): Promise<Map<number, number>> {
	const rows = await db<{ recipient_id: number; n: number }[]>`
		select recipient_id::float8 as recipient_id, count(*)::int as n from activities
		where community_id = ${communityId} and recipient_id = any(${recipientIds}::int8[]) and not is_read
		group by recipient_id`
	const counts = new Map<number, number>(recipientIds.map((id) => [id, 0]))
	for (const row of rows) counts.set(row.recipient_id, row.n)
	return counts
}
