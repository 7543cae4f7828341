// SQL of blocks. A block hides each user from the other, whoever blocked.
import type { Db } from '../../../lib/db'
import { paged } from '../../../lib/paged'

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

export async function deleteBlock(
	db: Db,
	communityId: number,
	blocker: number,
	blocked: number,
): Promise<void> {
	await db`
		delete from blocks
		where community_id = ${communityId} and blocker_id = ${blocker} and blocked_id = ${blocked}`
}

export interface BlockedUser {
	uuid: string
	name: string
	image_url: string
}

export function listBlocked(
	db: Db,
	communityId: number,
	blocker: number,
	limit: number,
	offset: number,
) {
	return paged<BlockedUser>(db, {
		columns: db`u.uuid, u.name, u.image_url`,
		from: db`from blocks b join users u on u.community_id = b.community_id and u.id = b.blocked_id
			where b.community_id = ${communityId} and b.blocker_id = ${blocker}`,
		orderBy: db`b.created_at desc, u.id`,
		limit,
		offset,
	})
}
