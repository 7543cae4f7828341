// Cohorts attached to chatrooms (CM/owner): attach and detach, the access each gives
// (2 full, 1 read only, 0 none), the share link, and opening it (collabcard).
import { config } from '../../config'
import type { Db } from '../../lib/db'
import { sql } from '../../lib/db'
import { forbidden, notFound } from '../../lib/errors'
import { MAX_ID } from '../../lib/input-limits'
import type { Session } from '../auth/plugin'
import { chatViewer, roomAccess } from './access'
import type { CohortAccess } from './cohort-access'
import {
	attach,
	attachmentsOfRoom,
	detach,
	findAttachment,
	isCohortMember,
	lockCohort,
	memberIds,
	setAccess,
} from './cohort-repo'
import { pruneRoomSeats, seatCohortMembers } from './cohort-seats'
import { joinChatroom } from './membership'
import { findChatroom } from './repo'

/** A cohort id from a path or query: a positive integer, else not found. */
export function cohortIdOf(value: string | number): number {
	const id = Number(value)
	if (!Number.isInteger(id) || id < 1 || id > MAX_ID) throw notFound('Cohort')
	return id
}

async function roomOf(db: Db, session: Session, chatroomId: string | number) {
	const room = await findChatroom(db, session.communityId, chatroomId)
	if (!room) throw notFound('Chatroom')
	return room
}

/**
 * Attaches cohorts to a room (access 2 unless already attached); with
 * `addExistingMembers` their members are seated now. Runs in the caller's
 * transaction, so POST /chatroom can seat its cohorts with the room it creates.
 */
export async function attachCohorts(
	tx: Db,
	session: Pick<Session, 'communityId'>,
	chatroomId: string,
	cohortIds: number[],
	options: { addExistingMembers?: boolean } = {},
): Promise<void> {
	const now = Date.now()
	for (const cohortId of [...new Set(cohortIds)]) {
		if (!(await lockCohort(tx, session.communityId, cohortId))) throw notFound(`Cohort ${cohortId}`)
		await attach(tx, { communityId: session.communityId, chatroomId, cohortId }, now)
		if (options.addExistingMembers)
			await seatCohortMembers(tx, session.communityId, chatroomId, cohortId)
	}
}

export async function attachToRoom(
	session: Session,
	input: { chatroom_id: string | number; cohort_ids: number[]; add_existing_members?: boolean },
) {
	const room = await roomOf(sql, session, input.chatroom_id)
	await sql.begin((tx) =>
		attachCohorts(tx, session, room.id, input.cohort_ids, {
			addExistingMembers: input.add_existing_members,
		}),
	)
	return accessOfRoom(session, room.id)
}

/** Detaches and unseats the cohort's members no other attached cohort covers. */
export async function detachFromRoom(
	session: Session,
	input: { chatroom_id: string | number; cohort_id: number },
) {
	const room = await roomOf(sql, session, input.chatroom_id)
	const removed = await sql.begin(async (tx) => {
		if (!(await lockCohort(tx, session.communityId, input.cohort_id))) throw notFound('Cohort')
		const key = { communityId: session.communityId, chatroomId: room.id, cohortId: input.cohort_id }
		if (!(await detach(tx, key))) throw notFound('Cohort attached to this chatroom')
		return pruneRoomSeats(
			tx,
			session.communityId,
			room.id,
			await memberIds(tx, session.communityId, input.cohort_id),
		)
	})
	return { removed_participant_count: removed }
}

export async function accessOfRoom(session: Session, chatroomId: string | number) {
	const room = await roomOf(sql, session, chatroomId)
	const attachments = await attachmentsOfRoom(sql, session.communityId, room.id)
	return {
		cohort_data: attachments.map((a) => ({
			cohort_id: a.cohort_id,
			chatroom_id: a.chatroom_id,
			cohort_access: a.cohort_access,
		})),
	}
}

/** Changes a cohort's access; at 0 its members lose the seats only it gave them. */
export async function changeAccess(
	session: Session,
	input: { chatroom_id: string | number; cohort_id: number; cohort_access: number },
) {
	const room = await roomOf(sql, session, input.chatroom_id)
	const access = input.cohort_access as CohortAccess
	const result = await sql.begin(async (tx) => {
		if (!(await lockCohort(tx, session.communityId, input.cohort_id))) throw notFound('Cohort')
		const key = { communityId: session.communityId, chatroomId: room.id, cohortId: input.cohort_id }
		const changed = await setAccess(tx, key, access)
		if (!changed) throw notFound('Cohort attached to this chatroom')
		const removed =
			access === 0
				? await pruneRoomSeats(
						tx,
						session.communityId,
						room.id,
						await memberIds(tx, session.communityId, input.cohort_id),
					)
				: 0
		return { changed, removed }
	})
	return {
		cohort_data: {
			cohort_id: result.changed.cohort_id,
			chatroom_id: result.changed.chatroom_id,
			cohort_access: result.changed.cohort_access,
		},
		removed_participant_count: result.removed,
	}
}

export async function shareLink(session: Session, chatroomId: string, cohortId: string) {
	const room = await roomOf(sql, session, chatroomId)
	const attachment = await findAttachment(sql, {
		communityId: session.communityId,
		chatroomId: room.id,
		cohortId: cohortIdOf(cohortId),
	})
	if (!attachment) throw notFound('Cohort attached to this chatroom')
	const base = config.PUBLIC_BASE_URL.replace(/\/+$/, '')
	return {
		chatroom_share: {
			share_url: `${base}/collabcard/${room.id}?cohort_id=${attachment.cohort_id}`,
			link_created_at: attachment.created_at,
		},
	}
}

/**
 * Opening a share link: a member of that cohort, attached with access 2, joins the room.
 * The link without a cohort (share.ts) joins whoever the room rule lets join.
 */
export async function openCollabcard(
	session: Session,
	chatroomId: string,
	cohortId: string | undefined,
) {
	if (cohortId === undefined || cohortId === '') return openRoomLink(session, chatroomId)
	const room = await roomOf(sql, session, chatroomId)
	const id = cohortIdOf(cohortId)
	const attachment = await findAttachment(sql, {
		communityId: session.communityId,
		chatroomId: room.id,
		cohortId: id,
	})
	const invited =
		attachment?.cohort_access === 2 &&
		(await isCohortMember(sql, session.communityId, id, session.userId))
	if (!invited) throw forbidden('This link is for members of the chatroom’s cohort')
	const joined = await sql.begin((tx) =>
		joinChatroom(tx, {
			communityId: session.communityId,
			chatroomId: room.id,
			userId: session.userId,
			method: 'cohort_chatroom_added',
		}),
	)
	return { chatroom_id: room.id, cohort_id: id, follow_status: true, joined }
}

async function openRoomLink(session: Session, chatroomId: string) {
	const access = await roomAccess(sql, chatViewer(session), chatroomId)
	if (!access.canJoin) throw forbidden('You do not have access to join this chatroom')
	const joined = await sql.begin((tx) =>
		joinChatroom(tx, {
			communityId: session.communityId,
			chatroomId: access.room.id,
			userId: session.userId,
			method: 'self_joined',
		}),
	)
	return { chatroom_id: access.room.id, cohort_id: null, follow_status: true, joined }
}
