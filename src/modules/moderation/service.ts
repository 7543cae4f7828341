// Member roles and rights: owners and CMs grant or remove CM rights and remove or
// restore a member's rights (auth/rights.ts); anyone reads their own role and rights.
// The session carries the role and rights stored now (auth/session.ts), so a change
// applies to live tokens at their next request.
import { sql } from '../../lib/db'
import { badRequest, forbidden, Messages, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Role } from '../../lib/tokens'
import { feedManager } from '../../timelines'
import { isKnownRight, presentRights } from '../auth/rights'
import { changeRole, writeAuthCopy } from '../auth/roles'
import { requireRole, type Session } from '../auth/session'
import { presentSdkMember, presentUser } from '../users/present'
import { findUserByUuid, searchUsers, setCustomTitle, type UserRow } from '../users/repo'
import type { MembersSearch, RightsChange } from './model'
import { findDeniedRights, replaceDeniedRights } from './rights-repo'

const describeRole = (role: Role) => ({
	role,
	is_cm: role !== 'member',
	is_owner: role === 'owner',
})

async function memberNamed(session: Session, uuid: string): Promise<UserRow> {
	const target = await findUserByUuid(sql, session.communityId, uuid)
	if (!target || target.is_deleted) throw notFound('Member')
	return target
}

/** The rights after `change`: those unselected are removed, those selected restored. */
function deniedAfter(current: number[], change: NonNullable<RightsChange['rights']>): number[] {
	const denied = new Set(current)
	for (const [i, right] of change.entries()) {
		if (!isKnownRight(right.id))
			throw badRequest(`rights[${i}].id: ${right.id} is not a member right`)
		if (right.is_selected) denied.delete(right.id)
		else denied.add(right.id)
	}
	return [...denied]
}

export async function changeRights(session: Session, input: RightsChange) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const wantsCm = input.is_cm ?? input.is_c_m
	if (wantsCm === undefined && !input.rights && input.custom_title === undefined)
		throw badRequest('is_cm is required (or rights, or custom_title)')
	const target = await memberNamed(session, input.uuid)
	let role = target.role
	if (wantsCm !== undefined) {
		if (role === 'owner') {
			if (!wantsCm) throw forbidden("The community owner's rights cannot be removed")
		} else role = wantsCm ? 'cm' : 'member'
	}
	const current = await findDeniedRights(sql, session.communityId, target.id)
	let denied = current
	if (input.rights) {
		const wanted = deniedAfter(current, input.rights)
		denied = await replaceDeniedRights(sql, session.communityId, target.id, wanted, session.userId)
	}
	if (role !== target.role) await changeRole(session.communityId, target.id, role, denied)
	else if (denied.join() !== current.join()) await writeAuthCopy(target.id, role, denied)
	let user = target
	if (input.custom_title !== undefined && input.custom_title !== target.custom_title) {
		await setCustomTitle(sql, session.communityId, target.id, input.custom_title)
		await feedManager.onUsersChanged(session.communityId, [target.id])
		user = { ...target, custom_title: input.custom_title }
	}
	return {
		user: presentUser(user),
		member: presentSdkMember({ ...user, role }),
		rights: presentRights(role, denied),
		...describeRole(role),
	}
}

/** GET /moderation/rights: a member's rights and role (another member's: CM or owner only). */
export async function readRights(session: Session, uuid: string | undefined) {
	const own = !uuid || uuid.toLowerCase() === session.uuid.toLowerCase()
	if (!own) requireRole(session, 'cm', Messages.notCmOrOwner)
	const target = await memberNamed(session, uuid ?? session.uuid)
	const denied = await findDeniedRights(sql, session.communityId, target.id)
	return {
		member: presentSdkMember(target),
		rights: presentRights(target.role, denied),
		...describeRole(target.role),
	}
}

export function currentRole(session: Session) {
	return { uuid: session.uuid, ...describeRole(session.role) }
}

/** Finds members to manage, with their role and status (the dashboard's members page). */
export async function findMembers(session: Session, query: MembersSearch) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const { page, pageSize, offset } = paging(query.page, query.page_size, 20)
	const { rows, total } = await searchUsers(
		sql,
		session.communityId,
		query.search?.trim() ?? '',
		pageSize,
		offset,
	)
	return {
		members: rows.map((row) => ({
			...presentUser(row),
			...describeRole(row.role),
			status: row.departure ?? 'active',
		})),
		total_count: total,
		page,
		page_size: pageSize,
	}
}
