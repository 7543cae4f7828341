// May a member message the other member of a DM now? The one home of the rule, asked by
// the conversation write path for every post in a type-10 room (and by the DM routes).
// A DM ends when either member left it (no seat), was removed from the community
// (deleted) or blocked the other; a DM that needs a request carries messages only once
// the request was accepted. CMs can always be messaged, but a block still stands.
import type { Db } from '../../lib/db'
import { forbidden, notFound } from '../../lib/errors'
import { findUsersByIds } from '../users/repo'
import { blockedBetween, type DmRow, findDmByRoom } from './dm-repo'
import { findParticipant } from './repo'

export const PENDING = 0
export const ACCEPTED = 1
export const REJECTED = 2

export const otherMemberOf = (dm: DmRow, userId: number) =>
	dm.low_user_id === userId ? dm.high_user_id : dm.low_user_id

/** Why the two cannot talk now, or null when they can (requests aside). */
export async function endedBecause(db: Db, dm: DmRow, userId: number): Promise<string | null> {
	const other = otherMemberOf(dm, userId)
	const [seat, users, blocked] = await Promise.all([
		dm.chatroom_id ? findParticipant(db, dm.community_id, dm.chatroom_id, other) : null,
		findUsersByIds(db, dm.community_id, [dm.low_user_id, dm.high_user_id]),
		blockedBetween(db, dm.community_id, dm.low_user_id, dm.high_user_id),
	])
	if (blocked) return 'You cannot message this member: one of you blocked the other'
	if (!seat || users.length < 2 || users.some((u) => u.is_deleted))
		return 'This conversation has ended'
	return null
}

/** Throws 403 with the reason when `userId` may not post in the DM room now. */
export async function assertCanMessage(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
): Promise<void> {
	const dm = await findDmByRoom(db, communityId, chatroomId)
	if (!dm) throw notFound('Chatroom')
	const ended = await endedBecause(db, dm, userId)
	if (ended) throw forbidden(ended)
	if (!dm.request_needed || dm.chat_request_state === ACCEPTED) return
	if (dm.chat_request_state === PENDING)
		throw forbidden(
			dm.requested_by === userId ? 'Your DM request is pending' : 'Accept the DM request to reply',
		)
	if (dm.chat_request_state === REJECTED) throw forbidden('The DM request was rejected')
	throw forbidden('Send a DM request first (POST /chatroom/dm/request)')
}
