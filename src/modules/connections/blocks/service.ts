// Blocking: the caller blocks or unblocks another member. A block removes every
// connection and pending request between the two (and their posts from each other's
// connection feed); new requests are refused while it stands (connections service),
// and feeds hide each from the other (timelines hydration reads `blocks`).
import { sql } from '../../../lib/db'
import { badRequest, forbidden, notFound } from '../../../lib/errors'
import { isUuid } from '../../../lib/ids'
import { feedManager } from '../../../timelines'
import type { Session } from '../../auth/session'
import { findUserByUuid } from '../../users/repo'
import { deleteConnectionsBetween, deleteRequestsBetween } from '../repo'
import { deleteBlock, insertBlock, listBlocked } from './repo'

function assertSelf(session: Session, pathUuid: string): void {
	if (pathUuid.toLowerCase() !== session.uuid.toLowerCase()) {
		throw forbidden('You can only manage your own blocked users')
	}
}

export async function setBlock(
	session: Session,
	pathUuid: string,
	targetUuid: string,
	shouldBlock: boolean,
) {
	assertSelf(session, pathUuid)
	const target = isUuid(targetUuid)
		? await findUserByUuid(sql, session.communityId, targetUuid)
		: null
	if (!target) throw notFound('Member')
	if (target.id === session.userId) throw badRequest('You cannot block yourself')
	if (!shouldBlock) {
		await deleteBlock(sql, session.communityId, session.userId, target.id)
		await feedManager.onUnblock(session.userId, target.id)
		return { is_blocked: false }
	}
	await sql.begin(async (tx) => {
		await insertBlock(tx, session.communityId, session.userId, target.id)
		await deleteRequestsBetween(tx, session.communityId, session.userId, target.id)
		await deleteConnectionsBetween(tx, session.communityId, session.userId, target.id)
	})
	await feedManager.onBlock(session.communityId, session.userId, target.id)
	return { is_blocked: true }
}

export async function getBlocked(
	session: Session,
	pathUuid: string,
	page: number,
	pageSize: number,
) {
	assertSelf(session, pathUuid)
	const { rows, total } = await listBlocked(
		sql,
		session.communityId,
		session.userId,
		pageSize,
		(page - 1) * pageSize,
	)
	const blockedUsers = rows.map((r) => ({ uuid: r.uuid, name: r.name, imageUrl: r.image_url }))
	return { blockedUsers, total_count: total, page, page_size: pageSize }
}
