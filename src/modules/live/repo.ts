// The live module's one read of its own: whom a viewer follows (their posts make the
// viewer's connection feed, as fan-out writes it: timelines/connection-repo.ts).
import type { Db } from '../../lib/db'

export async function followedIds(db: Db, communityId: number, userId: number): Promise<number[]> {
	const rows = await db<{ id: number }[]>`
		select connection_id::float8 as id from connections
		where community_id = ${communityId} and user_id = ${userId}`
	return rows.map((r) => r.id)
}
