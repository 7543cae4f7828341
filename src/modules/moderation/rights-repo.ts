// The rights a CM removed from members (member_right_denials; auth/rights.ts names them).
import type { Db } from '../../lib/db'

export async function findDeniedRights(
	db: Db,
	communityId: number,
	userId: number,
): Promise<number[]> {
	const rows = await db<{ right_state: number }[]>`
		select right_state from member_right_denials
		where community_id = ${communityId} and user_id = ${userId} order by right_state`
	return rows.map((row) => row.right_state)
}

/** Makes `denied` the member's removed rights (others restored); returns them in order. */
export async function replaceDeniedRights(
	db: Db,
	communityId: number,
	userId: number,
	denied: number[],
	by: number,
): Promise<number[]> {
	await db`
		delete from member_right_denials
		where community_id = ${communityId} and user_id = ${userId}
			and right_state <> all(${denied}::smallint[])`
	if (denied.length > 0)
		await db`
			insert into member_right_denials (community_id, user_id, right_state, denied_by)
			select ${communityId}, ${userId}, unnest(${denied}::smallint[]), ${by}
			on conflict do nothing`
	return [...denied].sort((a, b) => a - b)
}
