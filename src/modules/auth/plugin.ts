// The `auth` macro: `{ auth: 'member' }` needs a valid access token, `{ auth: 'cm' }`
// a community manager or the owner, `{ auth: 'owner' }` the dashboard owner.
// It resolves `session` for the handler.
import { Elysia } from 'elysia'
import { sql } from '../../lib/db'
import { forbidden, unauthorized } from '../../lib/errors'
import { limitUser } from '../../lib/rate-limit'
import { type Role, tokenFromHeader, verifyAccessToken } from '../../lib/tokens'
import { findCurrentRole } from './repo'

export interface Session {
	userId: number
	uuid: string
	communityId: number
	role: Role
}

const rank: Record<Role, number> = { member: 0, cm: 1, owner: 2 }

export async function sessionFromHeader(header: string | undefined): Promise<Session> {
	const token = tokenFromHeader(header)
	if (!token) throw unauthorized('Missing access token')
	const claims = await verifyAccessToken(token)
	if (!claims) throw unauthorized('Invalid or expired access token')
	return { userId: claims.uid, uuid: claims.sub, communityId: claims.cid, role: claims.role }
}

/** Re-reads the role so a CM grant or removal applies at once. */
export async function requireRole(
	session: Session,
	needed: Role,
	message?: string,
): Promise<Session> {
	const role = await findCurrentRole(sql, session.userId)
	if (!role) throw unauthorized('User no longer exists')
	if (rank[role] < rank[needed]) throw forbidden(message)
	return { ...session, role }
}

export const isCm = (session: Session) => session.role === 'cm' || session.role === 'owner'

export const authPlugin = new Elysia({ name: 'auth' }).macro({
	auth: (needed: Role) => ({
		async resolve({ headers }) {
			const session = await sessionFromHeader(headers.authorization)
			await limitUser(session.userId)
			if (needed === 'member') return { session }
			return { session: await requireRole(session, needed) }
		},
	}),
})
