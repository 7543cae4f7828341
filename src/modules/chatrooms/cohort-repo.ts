// SQL of a private chatroom's cohorts: the chatroom_cohorts links and the access each
// gives, and the reads of cohort membership that access and seating need. cohorts/
// owns the cohorts themselves (and reads its members through memberIds here); seats
// are written by chatrooms/membership only.
import type { Db } from '../../lib/db'
import type { CohortAccess } from './cohort-access'

export interface AttachedCohort {
	cohort_id: number
	name: string
	total_members: number
}

export async function bestAccess(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
): Promise<CohortAccess | null> {
	const [row] = await db<{ access: CohortAccess | null }[]>`
		select max(cc.cohort_access)::int as access from chatroom_cohorts cc
		join cohort_members m on m.community_id = cc.community_id and m.cohort_id = cc.cohort_id
		where cc.community_id = ${communityId} and cc.chatroom_id = ${chatroomId}
			and m.user_id = ${userId}`
	return row?.access ?? null
}

export async function accessByRoom(
	db: Db,
	communityId: number,
	userId: number,
): Promise<{ chatroom_id: string; access: CohortAccess }[]> {
	return db<{ chatroom_id: string; access: CohortAccess }[]>`
		select cc.chatroom_id::text, max(cc.cohort_access)::int as access
		from cohort_members m
		join cohorts c on c.community_id = m.community_id and c.id = m.cohort_id
		join chatroom_cohorts cc on cc.community_id = m.community_id and cc.cohort_id = m.cohort_id
		where m.community_id = ${communityId} and m.user_id = ${userId}
		group by cc.chatroom_id`
}

export async function attachedToRooms(
	db: Db,
	communityId: number,
	chatroomIds: string[],
): Promise<(AttachedCohort & { chatroom_id: string })[]> {
	if (chatroomIds.length === 0) return []
	return db<(AttachedCohort & { chatroom_id: string })[]>`
		select cc.chatroom_id::text, c.id::float8 as cohort_id, c.name,
			(select count(*)::int from cohort_members m
				where m.community_id = ${communityId} and m.cohort_id = c.id) as total_members
		from chatroom_cohorts cc join cohorts c on c.community_id = cc.community_id and c.id = cc.cohort_id
		where cc.community_id = ${communityId} and cc.chatroom_id = any(${chatroomIds}::bigint[])
		order by cc.created_at, c.id`
}

export async function lockCohort(db: Db, communityId: number, cohortId: number): Promise<boolean> {
	const rows = await db`
		select 1 from cohorts where id = ${cohortId} and community_id = ${communityId} for update`
	return rows.length === 1
}

export async function memberIds(db: Db, communityId: number, cohortId: number): Promise<number[]> {
	const rows = await db<{ user_id: number }[]>`
		select user_id::float8 as user_id from cohort_members
		where community_id = ${communityId} and cohort_id = ${cohortId} order by user_id`
	return rows.map((r) => r.user_id)
}

export interface Attachment {
	chatroom_id: string
	cohort_id: number
	cohort_access: CohortAccess
	created_at: number
}

const attachmentColumns = (db: Db) =>
	db`chatroom_id::text, cohort_id::float8 as cohort_id, cohort_access::int, created_at::float8`

/** A room's link to a cohort, by its key. */
export interface AttachmentKey {
	communityId: number
	chatroomId: string
	cohortId: number
}

/** Attaches with access 2; an existing attachment keeps its access. Returns it either way. */
export async function attach(db: Db, key: AttachmentKey, now: number): Promise<Attachment> {
	await db`
		insert into chatroom_cohorts (community_id, chatroom_id, cohort_id, created_at)
		values (${key.communityId}, ${key.chatroomId}, ${key.cohortId}, ${now}) on conflict do nothing`
	return (await findAttachment(db, key)) as Attachment
}

export async function findAttachment(db: Db, key: AttachmentKey): Promise<Attachment | null> {
	const [row] = await db<Attachment[]>`
		select ${attachmentColumns(db)} from chatroom_cohorts
		where community_id = ${key.communityId} and chatroom_id = ${key.chatroomId}
			and cohort_id = ${key.cohortId}`
	return row ?? null
}

export async function attachmentsOfRoom(
	db: Db,
	communityId: number,
	chatroomId: string,
): Promise<Attachment[]> {
	return db<Attachment[]>`
		select ${attachmentColumns(db)} from chatroom_cohorts
		where community_id = ${communityId} and chatroom_id = ${chatroomId}
		order by created_at, cohort_id`
}

export async function attachmentsOfCohort(
	db: Db,
	communityId: number,
	cohortId: number,
): Promise<Attachment[]> {
	return db<Attachment[]>`
		select ${attachmentColumns(db)} from chatroom_cohorts
		where community_id = ${communityId} and cohort_id = ${cohortId}`
}

export async function detach(db: Db, key: AttachmentKey): Promise<boolean> {
	const rows = await db`
		delete from chatroom_cohorts
		where community_id = ${key.communityId} and chatroom_id = ${key.chatroomId}
			and cohort_id = ${key.cohortId}
		returning 1`
	return rows.length === 1
}

export async function setAccess(
	db: Db,
	key: AttachmentKey,
	access: CohortAccess,
): Promise<Attachment | null> {
	const [row] = await db<Attachment[]>`
		update chatroom_cohorts set cohort_access = ${access}
		where community_id = ${key.communityId} and chatroom_id = ${key.chatroomId}
			and cohort_id = ${key.cohortId}
		returning ${attachmentColumns(db)}`
	return row ?? null
}

/**
 * Seats in a room that only cohort access explains and that no attached cohort with
 * access 2 covers any more, among the given users: seats a cohort made (and, in a
 * secret room, seats members took themselves), never a CM's or one a CM made.
 */
export async function uncoveredSeats(
	db: Db,
	communityId: number,
	chatroomId: string,
	among: number[],
): Promise<number[]> {
	if (among.length === 0) return []
	const rows = await db<{ user_id: number }[]>`
		select p.user_id::float8 as user_id from chatroom_participants p
		join chatrooms r on r.community_id = p.community_id and r.id = p.chatroom_id
		join users u on u.community_id = p.community_id and u.id = p.user_id
		where p.community_id = ${communityId} and p.chatroom_id = ${chatroomId}
			and (p.join_method = 'cohort_chatroom_added' or (r.is_secret and p.join_method = 'self_joined'))
			and u.role = 'member'
			and p.user_id = any(${among}::int8[])
			and not exists (
				select 1 from chatroom_cohorts cc
				join cohort_members m on m.community_id = cc.community_id and m.cohort_id = cc.cohort_id
				where cc.community_id = ${communityId} and cc.chatroom_id = p.chatroom_id
					and cc.cohort_access = 2 and m.user_id = p.user_id)`
	return rows.map((r) => r.user_id)
}

export async function isCohortMember(
	db: Db,
	communityId: number,
	cohortId: number,
	userId: number,
): Promise<boolean> {
	const rows = await db`
		select 1 from cohort_members
		where community_id = ${communityId} and cohort_id = ${cohortId} and user_id = ${userId}`
	return rows.length === 1
}
