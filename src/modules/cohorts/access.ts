// The cohort part of the chatroom access rule (DESIGN §8), its one home:
// chatrooms/access.ts adds what is the room's own (existence, seats, announcements).
// A member's cohort access to a room is the best over the attached cohorts they
// belong to (2 full, 1 see and read, 0 none; null when in none), read at request
// time so members added to an attached cohort gain access at once.
import type { Db } from '../../lib/db'
import type { Session } from '../auth/plugin'
import {
	type AttachedCohort,
	accessByRoom,
	attachedToRooms,
	bestAccess,
	roomStanding,
} from './repo'

export type CohortAccess = 0 | 1 | 2

type Viewer = Pick<Session, 'userId' | 'role'>
interface Room {
	id: string
	is_secret: boolean
}

const isCmRole = (viewer: Viewer) => viewer.role === 'cm' || viewer.role === 'owner'

/** Secret rooms are seen by participants, members of an attached cohort with access >= 1, and CMs. */
export async function canSeeChatroom(db: Db, room: Room, viewer: Viewer): Promise<boolean> {
	if (!room.is_secret || isCmRole(viewer)) return true
	const standing = await roomStanding(db, room.id, viewer.userId)
	return standing.participant || (standing.access ?? 0) >= 1
}

/** Joining a secret room needs an attached cohort with access 2 (or the CM role). */
export async function canJoinChatroom(db: Db, room: Room, viewer: Viewer): Promise<boolean> {
	if (!room.is_secret || isCmRole(viewer)) return true
	return (await bestAccess(db, room.id, viewer.userId)) === 2
}

/** Members whose best cohort access is below 2 may read but not post (no cohort: no limit). */
export async function canPostIn(db: Db, chatroomId: string, viewer: Viewer): Promise<boolean> {
	if (isCmRole(viewer)) return true
	const access = await bestAccess(db, chatroomId, viewer.userId)
	return access === null || access === 2
}

export const cohortAccess = (
	db: Db,
	chatroomId: string,
	userId: number,
): Promise<CohortAccess | null> => bestAccess(db, chatroomId, userId)

/** The user's best cohort access for every room of the community that has one. */
export async function cohortAccessByRoom(
	db: Db,
	communityId: number,
	userId: number,
): Promise<Map<string, CohortAccess>> {
	const rows = await accessByRoom(db, communityId, userId)
	return new Map(rows.map((row) => [row.chatroom_id, row.access]))
}

/** The chatroom object's `cohorts`: attached cohorts per room, oldest attachment first. */
export async function attachedCohorts(
	db: Db,
	chatroomIds: string[],
): Promise<Map<string, AttachedCohort[]>> {
	const byRoom = new Map<string, AttachedCohort[]>(chatroomIds.map((id) => [id, []]))
	for (const row of await attachedToRooms(db, chatroomIds)) {
		const { chatroom_id, ...cohort } = row
		byRoom.get(chatroom_id)?.push(cohort)
	}
	return byRoom
}

export type { AttachedCohort }
