// Invites to secret chatrooms (chat-js sendInvites, getInvites, inviteAction): a CM
// invites members (`POST /chatroom/participants`); each sees their pending invites
// (`GET /channel/invites`) and accepts — seated as a CM would seat them, so with full
// access — or rejects (`PUT /channel/invite`, invite_status 1 or 2). Members already
// seated are not invited.
import { sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/plugin'
import { presentMember } from '../users/present'
import { findUsersByIds, findUsersByRefs, type UserRow } from '../users/repo'
import { chatViewer, DM, isCmViewer, seeRoom } from './access'
import { answerInvite, pendingInvites, upsertInvites } from './invite-repo'
import { joinChatroom } from './membership'
import { findChatroom, findSeats, numericId } from './repo'
import { presentRooms } from './service'

export const ACCEPT = 1
export const REJECT = 2

/**
 * Members named by member id, uuid or customer id; 400 naming the unknown ones. A number
 * is a member id first, else a customer id (findUsersByIds drops what cannot be an id).
 */
async function membersNamed(communityId: number, refs: (string | number)[]): Promise<UserRow[]> {
	const numbers = refs.filter((r) => /^\d{1,16}$/.test(String(r))).map(Number)
	const byId = await findUsersByIds(sql, communityId, numbers)
	const ids = new Set(byId.map((u) => String(u.id)))
	const byRef = await findUsersByRefs(
		sql,
		communityId,
		refs.map(String).filter((r) => !ids.has(r)),
	)
	const found = [...byId, ...byRef].filter((u) => u.community_id === communityId && !u.is_deleted)
	const known = new Set(found.flatMap((u) => [String(u.id), u.uuid, u.user_unique_id]))
	const unknown = refs.map(String).filter((r) => !known.has(r))
	if (unknown.length > 0) throw badRequest(`Unknown members: ${unknown.slice(0, 20).join(', ')}`)
	return [...new Map(found.map((u) => [u.id, u])).values()]
}

export async function invite(
	session: Session,
	input: { chatroom_id: string | number; chatroom_participants: (string | number)[] },
) {
	const viewer = chatViewer(session)
	const room = await seeRoom(sql, viewer, input.chatroom_id)
	if (!isCmViewer(viewer)) throw forbidden('Only community managers invite members')
	if (room.type === DM) throw badRequest('Members cannot be invited to a direct message')
	const members = await membersNamed(viewer.communityId, input.chatroom_participants)
	const seats = await Promise.all(
		members.map((m) =>
			findSeats(sql, viewer.communityId, m.id, [room.id]).then((s) => s.has(room.id)),
		),
	)
	const invited = await upsertInvites(sql, {
		communityId: viewer.communityId,
		chatroomId: room.id,
		userIds: members.filter((_, i) => !seats[i]).map((m) => m.id),
		invitedBy: viewer.userId,
		now: Date.now(),
	})
	return { invited_count: invited.length }
}

export async function listInvites(session: Session, page?: number, pageSize?: number) {
	const viewer = chatViewer(session)
	const { pageSize: limit, offset } = paging(page, pageSize)
	const { rows, total } = await pendingInvites(
		sql,
		viewer.communityId,
		viewer.userId,
		limit,
		offset,
	)
	const rooms = (
		await Promise.all(rows.map((r) => findChatroom(sql, viewer.communityId, r.chatroom_id)))
	).flatMap((r) => (r ? [r] : []))
	const [presented, users] = await Promise.all([
		presentRooms(viewer, rooms),
		findUsersByIds(sql, viewer.communityId, [
			...new Set([viewer.userId, ...rows.map((r) => r.invited_by)]),
		]),
	])
	const roomById = new Map(presented.map((r) => [r.id, r]))
	const memberById = new Map(users.map((u) => [u.id, presentMember(u)]))
	return {
		user_invites: rows.map((r) => ({
			id: `${r.chatroom_id}:${r.user_id}`,
			channel: roomById.get(r.chatroom_id) ?? null,
			invite_status: r.invite_status,
			invite_sender: memberById.get(r.invited_by) ?? null,
			invite_receiver: memberById.get(r.user_id) ?? null,
			created_at: r.created_at,
			updated_at: r.updated_at,
		})),
		total_count: total,
	}
}

export async function answer(
	session: Session,
	input: { channel_id: string | number; invite_status: number },
) {
	const chatroomId = numericId(input.channel_id)
	if (!chatroomId) throw notFound('Invite')
	await sql.begin(async (tx) => {
		const answered = await answerInvite(tx, {
			communityId: session.communityId,
			chatroomId,
			userId: session.userId,
			status: input.invite_status,
			now: Date.now(),
		})
		if (!answered) throw notFound('Invite')
		if (input.invite_status === ACCEPT)
			await joinChatroom(tx, {
				communityId: session.communityId,
				chatroomId,
				userId: session.userId,
				method: 'cm_added',
			})
	})
	return { chatroom_id: chatroomId, invite_status: input.invite_status }
}
