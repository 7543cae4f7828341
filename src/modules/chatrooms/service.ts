// Chatrooms: create, edit and delete (CMs), read one or the list a viewer may see,
// follow and leave (self or a CM acting on a member), participants, mute, per-room
// notification state and the read mark.
import { sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/plugin'
import { presentMember } from '../users/present'
import { findUserById, findUsersByIds, findUsersByUuids, type UserRow } from '../users/repo'
import {
	type ChatViewer,
	chatViewer,
	isCmViewer,
	roomAccess,
	seeRoom,
	visibleSecretRooms,
} from './access'
import { attachedCohorts, cohortAccess } from './cohort-access'
import { attachCohorts } from './cohort-rooms'
import { announceOwnUnread, announceSeat } from './live'
import { moveReadMark } from './log-repo'
import { joinChatroom, leaveChatroom } from './membership'
import type {
	CreateChatroomInput,
	EditChatroomInput,
	FollowInput,
	NumericId,
	RemoveParticipantInput,
} from './model'
import { presentChatroom, unreadOf } from './present'
import {
	type ChatroomRow,
	communityName,
	findChatroom,
	findParticipant,
	findSeats,
	insertChatroom,
	listChatrooms,
	listParticipants,
	numericId,
	setMuted,
	setNotiState,
	softDeleteChatroom,
	updateChatroom,
} from './repo'
import { forgetDeletedRoom } from './room-state'

/** Chatroom objects for the viewer, with creators, seats and attached cohorts in batches. */
export async function presentRooms(viewer: ChatViewer, rooms: ChatroomRow[]) {
	const ids = rooms.map((r) => r.id)
	const creatorIds = [...new Set(rooms.flatMap((r) => (r.created_by ? [r.created_by] : [])))]
	const [name, seats, creators, cohorts] = await Promise.all([
		communityName(sql, viewer.communityId),
		findSeats(sql, viewer.communityId, viewer.userId, ids),
		findUsersByIds(sql, viewer.communityId, creatorIds),
		attachedCohorts(sql, viewer.communityId, ids),
	])
	const creatorById = new Map(creators.map((u) => [u.id, u]))
	return rooms.map((room) =>
		presentChatroom(room, {
			communityName: name,
			seat: seats.get(room.id),
			creator: room.created_by ? creatorById.get(room.created_by) : null,
			cohorts: cohorts.get(room.id) ?? [],
		}),
	)
}

/** Users of this community named by uuid; 400 naming any that are unknown. */
async function usersNamed(communityId: number, uuids: string[]): Promise<UserRow[]> {
	const wanted = [...new Set(uuids.map((u) => u.toLowerCase()))]
	const found = await findUsersByUuids(sql, communityId, wanted)
	const known = new Set(found.map((u) => u.uuid.toLowerCase()))
	const unknown = wanted.filter((u) => !known.has(u))
	if (unknown.length > 0) throw badRequest(`Unknown uuids: ${unknown.join(', ')}`)
	return found
}

export async function createChatroom(session: Session, input: CreateChatroomInput) {
	const c = session.communityId
	const seated = await usersNamed(c, input.uuids ?? [])
	const room = await sql.begin(async (tx) => {
		const room = await insertChatroom(tx, {
			community_id: c,
			title: input.title,
			header: input.header ?? '',
			chatroom_image_url: input.chatroom_image_url ?? '',
			type: input.type ?? 0,
			is_secret: input.is_secret ?? false,
			created_by: session.userId,
			now: Date.now(),
		})
		const seating = { communityId: c, chatroomId: room.id }
		await joinChatroom(tx, { ...seating, userId: session.userId, method: 'self_joined' })
		for (const user of seated)
			await joinChatroom(tx, { ...seating, userId: user.id, method: 'cm_added' })
		// attached cohorts seat their members at once (404 for an unknown cohort: nothing created)
		await attachCohorts(tx, session, room.id, input.cohort_ids ?? [], { addExistingMembers: true })
		return room
	})
	return getChatroom(session, room.id)
}

export async function editChatroom(session: Session, input: EditChatroomInput) {
	const room = await findChatroom(sql, session.communityId, input.chatroom_id)
	if (!room) throw notFound('Chatroom')
	await updateChatroom(sql, session.communityId, room.id, input, Date.now())
	return getChatroom(session, room.id)
}

export async function deleteChatroom(session: Session, chatroomId: NumericId) {
	const room = await findChatroom(sql, session.communityId, chatroomId)
	if (!room) throw notFound('Chatroom')
	await softDeleteChatroom(sql, session.communityId, room.id, Date.now())
	await forgetDeletedRoom(room.id)
}

export async function getChatroom(session: Session, chatroomId: string) {
	const { room, viewer } = await roomAccess(sql, chatViewer(session), chatroomId)
	const [[chatroom], access] = await Promise.all([
		presentRooms(viewer, [room]),
		cohortAccess(sql, viewer.communityId, room.id, viewer.userId),
	])
	return {
		chatroom,
		participant_count: room.participants_count,
		// an unseen room was a 404 already: whoever gets here may access it
		can_access_secret_chatroom: true,
		...(access === null ? {} : { cohort_access: access }),
		last_conversation_id: room.last_conversation_id,
		unread_messages: chatroom?.unread_messages ?? 0,
		// chat-js's declared GetChatroomResponse carries the community beside the room
		community: { id: room.community_id, name: chatroom?.community_name ?? '' },
	}
}

export async function listVisibleChatrooms(session: Session, page?: number, pageSize?: number) {
	const viewer = chatViewer(session)
	const { pageSize: limit, offset } = paging(page, pageSize)
	const secret = await visibleSecretRooms(sql, viewer)
	const { rows, total } = await listChatrooms(sql, viewer.communityId, secret, limit, offset)
	return { chatrooms: await presentRooms(viewer, rows), total_chatroom_count: total }
}

/** The member a CM names with `uuid` or `member_id`, or the caller; `byCm` when another. */
async function targetOf(
	viewer: ChatViewer,
	named: { uuid?: string; member_id?: NumericId },
): Promise<{ userId: number; byCm: boolean }> {
	let user: UserRow | null = null
	if (named.uuid) [user = null] = await findUsersByUuids(sql, viewer.communityId, [named.uuid])
	else if (named.member_id !== undefined) {
		const id = Number(numericId(named.member_id))
		user = id ? await findUserById(sql, viewer.communityId, id) : null
	} else return { userId: viewer.userId, byCm: false }
	if (!user) throw notFound('Member')
	if (user.id === viewer.userId) return { userId: user.id, byCm: false }
	if (!isCmViewer(viewer)) throw forbidden()
	return { userId: user.id, byCm: true }
}

/** PUT /chatroom/follow: join (value true, the default) or leave; idempotent. */
export async function follow(session: Session, input: FollowInput): Promise<void> {
	const viewer = chatViewer(session)
	const chatroomId = input.chatroom_id ?? input.collabcard_id
	if (chatroomId === undefined) throw badRequest('chatroom_id is required')
	const target = await targetOf(viewer, input)
	const access = await roomAccess(sql, viewer, chatroomId)
	const room = access.room
	const seating = { communityId: viewer.communityId, chatroomId: room.id, userId: target.userId }
	if (input.value === false) {
		if (room.is_secret) throw badRequest('Cannot unfollow chatroom')
		const method = target.byCm ? 'cm_removed' : 'self_left'
		if (await sql.begin((tx) => leaveChatroom(tx, { ...seating, method })))
			await announceSeat(viewer.communityId, room.id, target.userId, false, method)
		return
	}
	if (!target.byCm && !access.canJoin)
		throw forbidden('You do not have access to join this chatroom')
	const method = target.byCm ? 'cm_added' : 'self_joined'
	if (await sql.begin((tx) => joinChatroom(tx, { ...seating, method })))
		await announceSeat(viewer.communityId, room.id, target.userId, true, method)
}

/** DELETE /chatroom/participants: leave (also a secret room), or a CM removes a member. */
export async function removeParticipant(session: Session, input: RemoveParticipantInput) {
	const viewer = chatViewer(session)
	const target = await targetOf(viewer, input)
	const room = await seeRoom(sql, viewer, input.chatroom_id)
	const method = target.byCm ? 'cm_removed' : 'self_left'
	const left = await sql.begin((tx) =>
		leaveChatroom(tx, {
			communityId: viewer.communityId,
			chatroomId: room.id,
			userId: target.userId,
			method,
		}),
	)
	if (left) await announceSeat(viewer.communityId, room.id, target.userId, false, method)
}

export async function participants(
	session: Session,
	chatroomId: string,
	page?: number,
	pageSize?: number,
) {
	const viewer = chatViewer(session)
	const room = await seeRoom(sql, viewer, chatroomId)
	const { pageSize: limit, offset } = paging(page, pageSize)
	const ids = await listParticipants(sql, viewer.communityId, room.id, limit, offset)
	const byId = new Map((await findUsersByIds(sql, viewer.communityId, ids)).map((u) => [u.id, u]))
	return {
		participants: ids.flatMap((id) => {
			const user = byId.get(id)
			return user ? [presentMember(user)] : []
		}),
		total_participants_count: room.participants_count,
		// chat-js's declared answer: may this viewer add or remove members (a CM's right)
		can_edit_participant: isCmViewer(viewer),
	}
}

/** The caller's seat in a room they can see; 403 without one. */
async function ownSeat(session: Session, chatroomId: NumericId) {
	const viewer = chatViewer(session)
	const room = await seeRoom(sql, viewer, chatroomId)
	const seat = await findParticipant(sql, viewer.communityId, room.id, viewer.userId)
	if (!seat) throw forbidden('You are not a participant of this chatroom')
	return { room, seat }
}

export async function mute(session: Session, chatroomId: NumericId, value: boolean) {
	const { room } = await ownSeat(session, chatroomId)
	await setMuted(sql, session.communityId, room.id, session.userId, value)
	return { is_muted: value }
}

export async function changeNotiState(session: Session, chatroomId: NumericId, state: number) {
	const { room } = await ownSeat(session, chatroomId)
	await setNotiState(sql, session.communityId, room.id, session.userId, state)
	return { noti_state: state }
}

/** Everything in the room so far counts as read. */
export async function markRead(session: Session, chatroomId: NumericId) {
	const { room } = await ownSeat(session, chatroomId)
	return readUpToNow(session, room)
}

async function readUpToNow(session: Session, room: ChatroomRow) {
	if (room.last_conversation_id)
		await moveReadMark(sql, session.communityId, room.id, session.userId, room.last_conversation_id)
	const seat = await findParticipant(sql, session.communityId, room.id, session.userId)
	const fresh = await findChatroom(sql, session.communityId, room.id)
	const unread = fresh ? unreadOf(fresh, seat) : 0
	// the reader's other devices learn the room is read (a viewer without a seat has no count)
	if (seat) await announceOwnUnread(session.communityId, session.userId, room.id, unread)
	return { unread_messages: unread }
}

/**
 * PUT /chatroom/seen (chat-js crSeenFn, chatroomSeen, chatroomSeenWithUuid): the caller
 * opened the room. With a seat it is mark_read; a viewer previewing a room they may see
 * without a seat has nothing to mark. Naming another member is 403: seen is one's own.
 */
export async function seen(
	session: Session,
	input: {
		collabcard_id?: NumericId
		chatroom_id?: NumericId
		member_id?: NumericId
		uuid?: string
	},
) {
	const viewer = chatViewer(session)
	const chatroomId = input.collabcard_id ?? input.chatroom_id
	if (chatroomId === undefined || chatroomId === '') throw badRequest('collabcard_id is required')
	const named = await targetOf(viewer, { member_id: input.member_id, uuid: input.uuid })
	if (named.byCm) throw forbidden('Only the member may mark a chatroom seen')
	const room = await seeRoom(sql, viewer, chatroomId)
	return readUpToNow(session, room)
}
