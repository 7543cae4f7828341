// Member roles: owners and CMs grant or remove CM rights; anyone reads their own role.
// The session carries the role stored now (auth/session.ts), so a change applies to
// live tokens at their next request.
import { sql } from '../../lib/db'
import { forbidden, Messages, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Role } from '../../lib/tokens'
import { changeRole } from '../auth/roles'
import { requireRole, type Session } from '../auth/session'
import { presentUser } from '../users/present'
import { findUserByUuid, searchUsers } from '../users/repo'
import type { MembersSearch, Rights } from './model'

const describeRole = (role: Role) => ({
	role,
	is_cm: role !== 'member',
	is_owner: role === 'owner',
})

export async function changeRights(session: Session, input: Rights) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const target = await findUserByUuid(sql, session.communityId, input.uuid)
	if (!target || target.is_deleted) throw notFound('Member')
	let role = target.role
	if (role === 'owner') {
		if (!input.is_cm) throw forbidden("The community owner's rights cannot be removed")
	} else {
		role = input.is_cm ? 'cm' : 'member'
		if (role !== target.role) await changeRole(target.id, role)
	}
	return { user: presentUser(target), ...describeRole(role) }
}

export function currentRole(session: Session) {
	return { uuid: session.uuid, ...describeRole(session.role) }
}

/** Finds members to grant or remove CM rights (the dashboard's moderators page). */
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
		members: rows.map((row) => ({ ...presentUser(row), ...describeRole(row.role) })),
		total_count: total,
		page,
		page_size: pageSize,
	}
}
