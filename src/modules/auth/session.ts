// The caller of a request — the one home of "who is calling and may they do this".
// Identity comes from the access token; the ROLE is the one stored now (re-read once
// per request through roles.ts), so a CM grant or removal applies to live tokens on
// every route alike, feeds included. No Elysia here: services and the auth plugin
// both call these.
import { forbidden, unauthorized } from '../../lib/errors'
import { limitUser } from '../../lib/rate-limit'
import { type Role, tokenFromHeader, verifyAccessToken } from '../../lib/tokens'
import type { Viewer } from '../../timelines'
import { tokenState } from './revocation'

export interface Session {
	userId: number
	uuid: string
	communityId: number
	/** The role as stored when the request began (not the token's claim). */
	role: Role
	/** Rights a CM removed from this member (auth/rights.ts), as stored when the request began. */
	deniedRights?: readonly number[]
	/** The login (refresh-token family) of the access token; logout revokes it. */
	familyId?: string
}

const rank: Record<Role, number> = { member: 0, cm: 1, owner: 2 }

/** Who a verified token names, before its Redis checks are back. */
export type Caller = Pick<Session, 'userId' | 'communityId'>

/**
 * The token's identity with the stored role; 401 when the token or the user is gone,
 * 429 past the user's rate limit. `early` is called once the token is verified, in the
 * same tick as the checks are sent: the reads it starts travel in the same round trip
 * (the feed routes' first read).
 */
export async function sessionFromHeader(
	header: string | undefined,
	early?: (caller: Caller) => void,
): Promise<Session> {
	const token = tokenFromHeader(header)
	if (!token) throw unauthorized('Missing access token')
	const claims = await verifyAccessToken(token)
	if (!claims) throw unauthorized('Invalid or expired access token')
	// Two commands, one round trip (auto-pipelined): the rate INCR, and one HMGET for the
	// revocation marks and the role copy. Plain commands, not one script: a script costs
	// Redis ~10 µs more per call (measured, docs/feeds.md), more than the command it saves.
	const checked = Promise.all([limitUser(claims.uid), tokenState(claims)])
	early?.({ userId: claims.uid, communityId: claims.cid })
	const [, { role, deniedRights, revoked }] = await checked
	if (revoked) throw unauthorized('Access token revoked')
	if (!role) throw unauthorized('User no longer exists')
	return {
		userId: claims.uid,
		uuid: claims.sub,
		communityId: claims.cid,
		role,
		deniedRights,
		familyId: claims.fid,
	}
}

export const hasRole = (session: Pick<Session, 'role'>, needed: Role): boolean =>
	rank[session.role] >= rank[needed]

/** CMs and the owner pass every "Admin/CM" check. */
export const isCm = (session: Pick<Session, 'role'>): boolean => hasRole(session, 'cm')

/** 403 (with the spec's message where a route fixes one) unless the caller holds `needed`. */
export function requireRole(session: Session, needed: Role, message?: string): void {
	if (!hasRole(session, needed)) throw forbidden(message)
}

/** The feed engine's view of the caller. */
export const viewerOf = (session: Session): Viewer => ({
	userId: session.userId,
	communityId: session.communityId,
	isCm: isCm(session),
})
