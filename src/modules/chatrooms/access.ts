// Who may see, join and post in a chatroom: the one home of the rule (DESIGN section 8).
// The cohorts module supplies only data (a member's best access over the cohorts
// attached to a room); the rule that combines it with roles and seats lives here.
//
// A viewer's level in a room: 2 for CMs and for members a CM seated; otherwise their
// best cohort access when they are in an attached cohort (2 full, 1 read only, 0
// none); otherwise 2 in an open room and none in a secret one. Secret rooms are seen
// by their participants and with level >= 1 (anyone else gets 404) and joined with
// level 2; posting needs a seat (or CM) and level 2, and in an announcement room the
// CM role. A DM room (type 10) is seen and posted in by its two seated members only —
// CMs included: it is private between them (whether they may message each other now,
// blocks and requests, is modules/dms' rule, checked when posting).
import type { Db } from '../../lib/db'
import { forbidden, notFound } from '../../lib/errors'
import type { Session } from '../auth/plugin'
import { isCm } from '../auth/session'
import { cohortAccess, cohortAccessByRoom } from './cohort-access'
import {
	type ChatroomRow,
	DM,
	findRoomForViewer,
	type ParticipantRow,
	type SecretRooms,
	secretSeats,
} from './repo'

export const ANNOUNCEMENT = 7
export { DM }

export interface ChatViewer {
	userId: number
	communityId: number
	role: Session['role']
}

/** The one CM rule (auth/session.ts isCm), applied to a chat viewer. */
export const isCmViewer = (viewer: Pick<ChatViewer, 'role'>) => isCm(viewer)

/** The caller as chat sees it (the session's role is the one stored now, auth/session.ts). */
export const chatViewer = (session: Session): ChatViewer => ({
	userId: session.userId,
	communityId: session.communityId,
	role: session.role,
})

export interface RoomAccess {
	room: ChatroomRow
	participant: ParticipantRow | null
	/** best access over the attached cohorts the viewer is in (null: none) */
	cohortAccess: number | null
	canSee: boolean
	canJoin: boolean
	canPost: boolean
}

function levelOf(
	room: Pick<ChatroomRow, 'is_secret'>,
	viewer: ChatViewer,
	seat: Pick<ParticipantRow, 'join_method'> | null,
	cohort: number | null,
): number {
	if (isCmViewer(viewer) || seat?.join_method === 'cm_added') return 2
	if (cohort !== null) return cohort
	return room.is_secret ? -1 : 2
}

export function decide(
	room: ChatroomRow,
	viewer: ChatViewer,
	participant: ParticipantRow | null,
	cohort: number | null,
): RoomAccess {
	if (room.type === DM) {
		const seated = participant !== null
		return {
			room,
			participant,
			cohortAccess: null,
			canSee: seated,
			canJoin: false,
			canPost: seated,
		}
	}
	const level = levelOf(room, viewer, participant, cohort)
	const cm = isCmViewer(viewer)
	return {
		room,
		participant,
		cohortAccess: cohort,
		canSee: !room.is_secret || participant !== null || level >= 1,
		canJoin: !room.is_secret || level >= 2,
		canPost: (cm || (participant !== null && level >= 2)) && (room.type !== ANNOUNCEMENT || cm),
	}
}

/**
 * The viewer's access to a room (404 for an unknown, deleted, foreign or unseen room).
 * One query reads room and seat; the cohort access is a second one, skipped when the
 * role or a CM seat settles it.
 */
export async function roomAccess(
	db: Db,
	viewer: ChatViewer,
	chatroomId: string | number | undefined,
): Promise<RoomAccess & { viewer: ChatViewer }> {
	const { room, seat, fresh, settled } = await loadRoom(db, viewer, chatroomId)
	const cohort = settled ? null : await cohortAccess(db, room.community_id, room.id, viewer.userId)
	const access = decide(room, fresh, seat, cohort)
	if (!access.canSee) throw notFound('Chatroom')
	return { ...access, viewer: fresh }
}

async function loadRoom(db: Db, viewer: ChatViewer, chatroomId: string | number | undefined) {
	const found = await findRoomForViewer(db, viewer.communityId, chatroomId ?? '', viewer.userId)
	if (!found || (found.room.type === DM && !found.seat)) throw notFound('Chatroom')
	const settled =
		found.room.type === DM || isCmViewer(viewer) || found.seat?.join_method === 'cm_added'
	return { room: found.room, seat: found.seat, fresh: viewer, settled }
}

/**
 * Reading only (the hot path): a room the viewer may see and their seat. Open rooms
 * and seats need no cohort lookup to be seen.
 */
export async function seeRoomAs(
	db: Db,
	viewer: ChatViewer,
	chatroomId: string | number | undefined,
): Promise<{ room: ChatroomRow; seat: ParticipantRow | null; viewer: ChatViewer }> {
	const { room, seat, fresh, settled } = await loadRoom(db, viewer, chatroomId)
	if (room.is_secret && !seat && !settled) {
		const cohort = await cohortAccess(db, room.community_id, room.id, viewer.userId)
		if (!decide(room, fresh, seat, cohort).canSee) throw notFound('Chatroom')
	}
	return { room, seat, viewer: fresh }
}

/** A room the viewer may see (404 otherwise). */
export const seeRoom = async (
	db: Db,
	viewer: ChatViewer,
	chatroomId: string | number | undefined,
) => (await seeRoomAs(db, viewer, chatroomId)).room

/** The viewer's access to a room they may post in; 403 with the reason otherwise. */
export async function postRoom(
	db: Db,
	viewer: ChatViewer,
	chatroomId: string | number,
): Promise<RoomAccess> {
	const access = await roomAccess(db, viewer, chatroomId)
	if (access.canPost) return access
	if (access.room.type === ANNOUNCEMENT && access.participant)
		throw forbidden('Only community managers post in an announcement chatroom')
	if (!access.participant) throw forbidden('Join the chatroom to post in it')
	throw forbidden('Your access to this chatroom is read only')
}

/**
 * The secret rooms a viewer may list ('all' for a CM): the list form of canSee —
 * rooms they are seated in, and rooms where an attached cohort gives access >= 1.
 */
export async function visibleSecretRooms(db: Db, viewer: ChatViewer): Promise<SecretRooms> {
	if (isCmViewer(viewer)) return 'all'
	const [seats, cohorts] = await Promise.all([
		secretSeats(db, viewer.communityId, viewer.userId),
		cohortAccessByRoom(db, viewer.communityId, viewer.userId),
	])
	const visible = new Set<string>()
	for (const [roomId, access] of cohorts) if (access >= 1) visible.add(roomId)
	for (const seat of seats) visible.add(seat.chatroom_id)
	return [...visible]
}
