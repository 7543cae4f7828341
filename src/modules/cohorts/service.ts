// Cohorts (CM/owner): create, list, read, replace members, delete, remove a member.
// Membership is access: taking someone out of a cohort also unseats them from the
// rooms where only that cohort held them (seats.ts).
import { sql } from '../../lib/db'
import { badRequest, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/plugin'
import { lockCohort, memberIds } from '../chatrooms/cohort-repo'
import { cohortIdOf } from '../chatrooms/cohort-rooms'
import { pruneCohortSeats } from '../chatrooms/cohort-seats'
import { presentMember } from '../users/present'
import { findUserByUuid, findUsersByIds } from '../users/repo'
import { resolveMembers } from './members'
import type { CohortMemberInput, CreateCohortInput, UpdateCohortInput } from './model'
import {
	addMembers,
	type CohortRow,
	deleteCohortRow,
	findCohort,
	insertCohort,
	listCohorts as listCohortRows,
	pageMemberIds,
	removeMembers,
	renameCohort,
} from './repo'

async function existingCohort(communityId: number, cohortId: number): Promise<CohortRow> {
	const cohort = await findCohort(sql, communityId, cohortId)
	if (!cohort) throw notFound('Cohort')
	return cohort
}

export async function createCohort(session: Session, input: CreateCohortInput) {
	const name = input.name.trim()
	if (name === '') throw badRequest('name cannot be empty')
	const userIds = await resolveMembers(sql, session.communityId, input.uuids, input.member_ids)
	const now = Date.now()
	const id = await sql.begin(async (tx) => {
		const cohortId = await insertCohort(tx, session.communityId, name, now)
		await addMembers(tx, session.communityId, cohortId, userIds, now)
		return cohortId
	})
	return { cohort_data: await existingCohort(session.communityId, id) }
}

export async function listCohorts(session: Session, page?: number, pageSize?: number) {
	const p = paging(page, pageSize, 20)
	const { cohorts, total } = await listCohortRows(sql, session.communityId, p.pageSize, p.offset)
	return {
		cohorts: cohorts.map(({ cohort_id, name, total_members }) => ({
			cohort_id,
			name,
			total_members,
		})),
		total_count: total,
	}
}

export async function getCohort(
	session: Session,
	cohortId: string,
	page?: number,
	pageSize?: number,
) {
	const cohort = await existingCohort(session.communityId, cohortIdOf(cohortId))
	const p = paging(page, pageSize, 20)
	const ids = await pageMemberIds(sql, session.communityId, cohort.cohort_id, p.pageSize, p.offset)
	const users = new Map(
		(await findUsersByIds(sql, session.communityId, ids)).map((user) => [user.id, user]),
	)
	const members = ids.flatMap((id) => {
		const user = users.get(id)
		return user ? [presentMember(user)] : []
	})
	return {
		cohort: {
			cohort_id: cohort.cohort_id,
			name: cohort.name,
			members,
			total_members: cohort.total_members,
		},
	}
}

/** Renames and/or replaces the members (when uuids or member_ids are given). */
export async function updateCohort(session: Session, input: UpdateCohortInput) {
	const name = input.name?.trim()
	if (name === '') throw badRequest('name cannot be empty')
	const replacing = input.uuids !== undefined || input.member_ids !== undefined
	const wanted = replacing
		? await resolveMembers(sql, session.communityId, input.uuids, input.member_ids)
		: []
	const now = Date.now()
	await sql.begin(async (tx) => {
		if (!(await lockCohort(tx, session.communityId, input.cohort_id))) throw notFound('Cohort')
		const c = session.communityId
		if (name !== undefined) await renameCohort(tx, c, input.cohort_id, name, now)
		if (!replacing) return
		const keep = new Set(wanted)
		const leaving = (await memberIds(tx, c, input.cohort_id)).filter((id) => !keep.has(id))
		await removeMembers(tx, c, input.cohort_id, leaving)
		await addMembers(tx, c, input.cohort_id, wanted, now)
		await pruneCohortSeats(tx, session.communityId, input.cohort_id, leaving)
	})
	return { cohort_data: await existingCohort(session.communityId, input.cohort_id) }
}

export async function deleteCohort(session: Session, cohortId: number) {
	await sql.begin(async (tx) => {
		if (!(await lockCohort(tx, session.communityId, cohortId))) throw notFound('Cohort')
		const members = await memberIds(tx, session.communityId, cohortId)
		// Out of the cohort first, so its own attachments no longer cover anyone.
		await removeMembers(tx, session.communityId, cohortId, members)
		await pruneCohortSeats(tx, session.communityId, cohortId, members)
		await deleteCohortRow(tx, session.communityId, cohortId)
	})
}

export async function removeCohortMember(session: Session, input: CohortMemberInput) {
	const userId = await memberToRemove(session.communityId, input)
	await sql.begin(async (tx) => {
		if (!(await lockCohort(tx, session.communityId, input.cohort_id))) throw notFound('Cohort')
		const removed = await removeMembers(tx, session.communityId, input.cohort_id, [userId])
		if (removed.length === 0) throw notFound('Cohort member')
		await pruneCohortSeats(tx, session.communityId, input.cohort_id, removed)
	})
	return { cohort_data: await existingCohort(session.communityId, input.cohort_id) }
}

async function memberToRemove(communityId: number, input: CohortMemberInput): Promise<number> {
	if (input.uuid !== undefined) {
		const user = await findUserByUuid(sql, communityId, input.uuid)
		if (!user) throw notFound('Member')
		return user.id
	}
	if (input.member_id !== undefined) {
		const [id] = await resolveMembers(sql, communityId, [], [input.member_id]).catch(() => {
			throw notFound('Member')
		})
		return id
	}
	throw badRequest('uuid (or member_id) is required')
}
