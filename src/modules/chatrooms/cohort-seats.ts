// Seating that follows cohort access: attaching with add_existing_members seats the
// cohort's members; losing cover (detach, access 0, leaving the cohort, deleting it)
// unseats those no other attached cohort with access 2 still covers. Every seat change
// goes through membership.ts, so system lines and events are written alike.
import type { Db } from '../../lib/db'
import { attachmentsOfCohort, memberIds, uncoveredSeats } from './cohort-repo'
import { joinChatroom, leaveChatroom } from './membership'

/** Unseats, among `userIds`, those the room's attached cohorts no longer cover; returns how many. */
export async function pruneRoomSeats(
	tx: Db,
	communityId: number,
	chatroomId: string,
	userIds: number[],
): Promise<number> {
	let removed = 0
	for (const userId of await uncoveredSeats(tx, communityId, chatroomId, userIds)) {
		const left = await leaveChatroom(tx, {
			communityId,
			chatroomId,
			userId,
			method: 'cohort_chatroom_removed',
		})
		if (left) removed++
	}
	return removed
}

/** The same for every room the cohort is attached to (after `userIds` lost its cover). */
export async function pruneCohortSeats(
	tx: Db,
	communityId: number,
	cohortId: number,
	userIds: number[],
): Promise<number> {
	let removed = 0
	for (const attachment of await attachmentsOfCohort(tx, communityId, cohortId))
		removed += await pruneRoomSeats(tx, communityId, attachment.chatroom_id, userIds)
	return removed
}

/** Seats every member of the cohort in the room (`cohort_chatroom_added`); returns how many were new. */
export async function seatCohortMembers(
	tx: Db,
	communityId: number,
	chatroomId: string,
	cohortId: number,
): Promise<number> {
	let seated = 0
	for (const userId of await memberIds(tx, communityId, cohortId)) {
		const joined = await joinChatroom(tx, {
			communityId,
			chatroomId,
			userId,
			method: 'cohort_chatroom_added',
		})
		if (joined) seated++
	}
	return seated
}
