// SQL of blocks. A block hides each user from the other, whoever blocked.
import type { Db } from '../../../lib/db'

export async function isBlockedEitherWay(db: Db, a: number, b: number): Promise<boolean> {
	const [row] = await db`
		select 1 from blocks
		where (blocker_id = ${a} and blocked_id = ${b}) or (blocker_id = ${b} and blocked_id = ${a})`
	return Boolean(row)
}

export async function insertBlock(
	db: Db,
	communityId: number,
	blocker: number,
	blocked: number,
): Promise<void> {
	await db`
		insert into blocks (community_id, blocker_id, blocked_id) values (${communityId}, ${blocker}, ${blocked})
		on conflict do nothing`
}

export async function deleteBlock(db: Db, blocker: number, blocked: number): Promise<void> {
	await db`delete from blocks where blocker_id = ${blocker} and blocked_id = ${blocked}`
}

export interface BlockedUser {
	uuid: string
	name: string
	image_url: string
	total: number
}

export async function listBlocked(db: Db, blocker: number, limit: number, offset: number) {
	const rows = await db<BlockedUser[]>`
		select u.uuid, u.name, u.image_url, count(*) over ()::int as total
		from blocks b join users u on u.id = b.blocked_id
		where b.blocker_id = ${blocker}
		order by b.created_at desc, u.id
		limit ${limit} offset ${offset}`
	if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 }
	const [count] = await db`select count(*)::int as n from blocks where blocker_id = ${blocker}`
	return { rows, total: count.n as number }
}
