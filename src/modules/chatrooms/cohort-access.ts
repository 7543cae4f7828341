// What cohorts contribute to the chatroom access rule (the rule itself is
// chatrooms/access.ts): a member's cohort access to a room is the best over the
// attached cohorts they belong to (2 full, 1 see and read, 0 none; null when in
// none), read at request time so members added to an attached cohort gain it at once.
import type { Db } from '../../lib/db'
import { type AttachedCohort, accessByRoom, attachedToRooms, bestAccess } from './cohort-repo'

export type CohortAccess = 0 | 1 | 2

export const cohortAccess = (
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
): Promise<CohortAccess | null> => bestAccess(db, communityId, chatroomId, userId)

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
	communityId: number,
	chatroomIds: string[],
): Promise<Map<string, AttachedCohort[]>> {
	const byRoom = new Map<string, AttachedCohort[]>(chatroomIds.map((id) => [id, []]))
	for (const row of await attachedToRooms(db, communityId, chatroomIds)) {
		const { chatroom_id, ...cohort } = row
		byRoom.get(chatroom_id)?.push(cohort)
	}
	return byRoom
}

export type { AttachedCohort }
