// The `auth` macro: `{ auth: 'member' }` needs a valid access token, `{ auth: 'cm' }`
// a community manager or the owner, `{ auth: 'owner' }` the dashboard owner.
// It resolves `session` (session.ts: identity and the role stored now) for the handler.
import { Elysia } from 'elysia'
import type { Role } from '../../lib/tokens'
import { requireRole, sessionFromHeader } from './session'

export type { Session } from './session'

export const authPlugin = new Elysia({ name: 'auth' }).macro({
	auth: (needed: Role) => ({
		async resolve({ headers }) {
			const session = await sessionFromHeader(headers.authorization)
			requireRole(session, needed)
			return { session }
		},
	}),
})
