// Member roles: owners and CMs grant or remove CM rights; anyone reads their own role.
// Roles are re-read from Postgres on every check, so a change applies to live tokens.
import { sql } from '../../lib/db'
import { AppError, forbidden, Messages, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Role } from '../../lib/tokens'
import { requireRole, type Session } from '../auth/plugin'
import { findCurrentRole } from '../auth/repo'
import { presentUser } from '../users/present'
import { findUserByUuid, searchUsers, setRole } from '../users/repo'
import type { MembersSearch, Rights } from './model'

const describeRole = (role: Role) => ({
	role,
	is_cm: role !== 'member',
	is_owner: role === 'owner',
})

export async function changeRights(session: Session, input: Rights) {
	await requireRole(session, 'cm', Messages.notCmOrOwner)
	const target = await findUserByUuid(sql, session.communityId, input.uuid)
	if (!target || target.is_deleted) throw notFound('Member')
	let role = target.role
	if (role === 'owner') {
		if (!input.is_cm) throw forbidden("The community owner's rights cannot be removed")
	} else {
		role = input.is_cm ? 'cm' : 'member'
		if (role !== target.role) await setRole(sql, target.id, role)
	}
	return { user: presentUser(target), ...describeRole(role) }
}

export async function currentRole(session: Session) {
	const role = await findCurrentRole(sql, session.userId)
	if (!role) throw new AppError(401, 'User no longer exists')
	return { uuid: session.uuid, ...describeRole(role) }
}

/** Finds members to grant or remove CM rights (the dashboard's moderators page). */
export async function findMembers(session: Session, query: MembersSearch) {
	await requireRole(session, 'cm', Messages.notCmOrOwner)
	const { page, pageSize, offset } = paging(query.page, query.page_size, 20)
	const { rows, total } = await searchUsers(
		sql,
		session.communityId,
		query.search?.trim() ?? '',
		pageSize,
		offset,
	)
	return {
		members: rows.map((row) => ({ ...presentUser(row), ...describeRole(row.role) })),
		total_count: total,
		page,
		page_size: pageSize,
	}
}
