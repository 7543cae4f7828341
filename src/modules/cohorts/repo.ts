// SQL of cohorts, their members, and their attachments to chatrooms. Chatrooms and
// their participants are read here, never written: seating belongs to chatrooms.
import type { Db } from '../../lib/db'
import type { CohortAccess } from './access'

export interface AttachedCohort {
	cohort_id: number
	name: string
	total_members: number
}

export async function bestAccess(
	db: Db,
	chatroomId: string,
	userId: number,
): Promise<CohortAccess | null> {
	const [row] = await db<{ access: CohortAccess | null }[]>`
		select max(cc.cohort_access)::int as access from chatroom_cohorts cc
		join cohort_members m on m.cohort_id = cc.cohort_id
		where cc.chatroom_id = ${chatroomId} and m.user_id = ${userId}`
	return row?.access ?? null
}

/** Whether the user is seated in the room, and their best cohort access to it. */
export async function roomStanding(
	db: Db,
	chatroomId: string,
	userId: number,
): Promise<{ participant: boolean; access: CohortAccess | null }> {
	const [row] = await db<{ participant: boolean; access: CohortAccess | null }[]>`
		select
			exists (select 1 from chatroom_participants where chatroom_id = ${chatroomId} and user_id = ${userId}) as participant,
			(select max(cc.cohort_access)::int from chatroom_cohorts cc
				join cohort_members m on m.cohort_id = cc.cohort_id
				where cc.chatroom_id = ${chatroomId} and m.user_id = ${userId}) as access`
	return row
}

export async function accessByRoom(
	db: Db,
	communityId: number,
	userId: number,
): Promise<{ chatroom_id: string; access: CohortAccess }[]> {
	return db<{ chatroom_id: string; access: CohortAccess }[]>`
		select cc.chatroom_id::text, max(cc.cohort_access)::int as access
		from cohort_members m
		join cohorts c on c.id = m.cohort_id and c.community_id = ${communityId}
		join chatroom_cohorts cc on cc.cohort_id = m.cohort_id
		where m.user_id = ${userId}
		group by cc.chatroom_id`
}

export async function attachedToRooms(
	db: Db,
	chatroomIds: string[],
): Promise<(AttachedCohort & { chatroom_id: string })[]> {
	if (chatroomIds.length === 0) return []
	return db<(AttachedCohort & { chatroom_id: string })[]>`
		select cc.chatroom_id::text, c.id as cohort_id, c.name,
			(select count(*)::int from cohort_members m where m.cohort_id = c.id) as total_members
		from chatroom_cohorts cc join cohorts c on c.id = cc.cohort_id
		where cc.chatroom_id = any(${chatroomIds}::bigint[])
		order by cc.created_at, c.id`
}
