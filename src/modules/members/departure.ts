// Leaving the community, and a CM removing or banning a member. One transaction marks
// the member departed (users.departure), revokes every login, ends their connections
// and connection requests, unseats them from every chatroom (each fires
// `chatroom.left`, the one fitting event the spec lists) and drops their push devices;
// after it, their access tokens stop at once (the revocation marks logout uses) and
// the feeds forget the connections. Their posts, comments and messages are kept.
// `left` and `removed` end when the customer id starts a session again; `banned`
// refuses that (sessions/initiate.ts) until a CM lifts it.
import { sql } from '../../lib/db'
import { badRequest, forbidden, Messages, notFound } from '../../lib/errors'
import { feedManager } from '../../timelines'
import { markUserRevoked } from '../auth/revocation'
import { writeAuthCopy } from '../auth/roles'
import { requireRole, type Session } from '../auth/session'
import { leaveChatroom } from '../chatrooms/membership'
import { seatedRoomIds } from '../chatrooms/repo'
import { deleteAllConnectionsOf } from '../connections/repo'
import { deleteDevicesOfUser } from '../devices/repo'
import { findDeniedRights } from '../moderation/rights-repo'
import { revokeAllForUser } from '../sessions/repo'
import { type Departure, findUserByUuid, findUsersByUuids, type UserRow } from '../users/repo'
import { liftBan, markDeparted } from './repo'

async function depart(session: Session, user: UserRow, departure: Departure): Promise<void> {
	const c = session.communityId
	const outcome = await sql.begin(async (tx) => {
		if (!(await markDeparted(tx, c, user.id, departure, session.userId))) return null
		const families = await revokeAllForUser(tx, c, user.id)
		const peers = await deleteAllConnectionsOf(tx, c, user.id)
		const method = departure === 'left' ? 'self_left' : 'cm_removed'
		for (const chatroomId of await seatedRoomIds(tx, c, user.id))
			await leaveChatroom(tx, { communityId: c, chatroomId, userId: user.id, method })
		await deleteDevicesOfUser(tx, c, user.id)
		return { families, peers }
	})
	if (!outcome) throw forbidden('The community owner cannot leave or be removed')
	await markUserRevoked(user.id, outcome.families)
	// A CM who departs is a member again; the role copy says so before any new login.
	if (user.role === 'cm')
		await writeAuthCopy(user.id, 'member', await findDeniedRights(sql, c, user.id))
	await Promise.all(outcome.peers.map((peer) => feedManager.onDisconnect(c, user.id, peer)))
}

/**
 * DELETE /community/member/remove: without uuids (or with the caller's alone) the
 * caller leaves; other uuids are members a CM removes.
 */
export async function leaveOrRemove(session: Session, uuids: string[] | undefined) {
	const self = session.uuid.toLowerCase()
	const wanted = [...new Set((uuids?.length ? uuids : [self]).map((u) => u.toLowerCase()))]
	if (wanted.some((uuid) => uuid !== self)) requireRole(session, 'cm', Messages.notCmOrOwner)
	const users = await findUsersByUuids(sql, session.communityId, wanted)
	const found = new Map(users.map((user) => [user.uuid.toLowerCase(), user]))
	const unknown = wanted.filter((uuid) => !found.get(uuid) || found.get(uuid)?.is_deleted)
	if (unknown.length > 0) throw notFound(`Member ${unknown.join(', ')}`)
	for (const uuid of wanted) {
		const user = found.get(uuid) as UserRow
		await depart(session, user, uuid === self ? 'left' : 'removed')
	}
	return { removed: wanted }
}

async function bannable(session: Session, uuid: string): Promise<UserRow> {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const user = await findUserByUuid(sql, session.communityId, uuid)
	if (!user || user.is_deleted) throw notFound('Member')
	if (user.id === session.userId) throw badRequest('uuid: you cannot ban yourself')
	return user
}

/** POST /community/member/ban (CM): removes the member and refuses their customer id. */
export async function ban(session: Session, uuid: string) {
	const user = await bannable(session, uuid)
	await depart(session, user, 'banned')
	return { uuid: user.uuid, status: 'banned' as const }
}

/** DELETE /community/member/ban (CM): the customer id may start a session again. */
export async function unban(session: Session, uuid: string) {
	const user = await bannable(session, uuid)
	if (!(await liftBan(sql, session.communityId, user.id)))
		throw badRequest('uuid: this member is not banned')
	return { uuid: user.uuid, status: 'removed' as const }
}
