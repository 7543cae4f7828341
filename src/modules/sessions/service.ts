// Sessions: tokens, refresh with rotation and reuse detection, logout (the app
// launch that starts a session is initiate.ts).
import { config } from '../../config'
import { randomToken, sha256 } from '../../lib/crypto'
import { type Db, sql } from '../../lib/db'
import { unauthorized } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { signAccessToken } from '../../lib/tokens'
import { markFamiliesRevoked, markUserRevoked } from '../auth/revocation'
import type { Session } from '../auth/session'
import { findCommunity } from '../projects/repo'
import { presentCommunity } from '../projects/service'
import { presentUser } from '../users/present'
import { findUserById, type UserRow } from '../users/repo'
import {
	findRefreshTokenCommunity,
	insertRefreshToken,
	lockRefreshToken,
	markRotated,
	revokeAllForUser,
	revokeFamily,
} from './repo'

/**
 * A new refresh token: what the client gets, the hash that is stored, its expiry. It
 * names its community (`rt_<community>.<random>`; the hash covers it, so it cannot be
 * changed), so a refresh finds its row on one shard without asking which (DESIGN §21).
 */
export function newRefreshToken(communityId: number) {
	const refresh_token = `rt_${communityId}.${randomToken(32)}`
	const expires_at = new Date(Date.now() + config.REFRESH_TOKEN_DAYS * 86_400_000)
	return { refresh_token, token_hash: sha256(refresh_token), expires_at }
}

/** The access token of `user` for the login (refresh-token family) `familyId`. */
export const signAccessTokenFor = (user: UserRow, familyId: string, minutes?: number) =>
	signAccessToken(
		{ sub: user.uuid, uid: user.id, cid: user.community_id, role: user.role, fid: familyId },
		minutes,
	)

export async function issueTokens(db: Db, user: UserRow, familyId = newId(), minutes?: number) {
	const access_token = await signAccessTokenFor(user, familyId, minutes)
	const { refresh_token, token_hash, expires_at } = newRefreshToken(user.community_id)
	await insertRefreshToken(db, {
		community_id: user.community_id,
		token_hash,
		family_id: familyId,
		user_id: user.id,
		expires_at,
	})
	return { access_token, refresh_token }
}

/** The community a refresh token names; one issued before tokens named it is looked up. */
async function communityOfRefreshToken(refreshToken: string, tokenHash: string) {
	const named = /^rt_(\d{1,10})\./.exec(refreshToken)?.[1]
	if (named !== undefined) return Number(named)
	return findRefreshTokenCommunity(tokenHash)
}

export async function describeSession(session: Pick<Session, 'userId' | 'communityId'>) {
	const user = await findUserById(sql, session.communityId, session.userId)
	if (!user || user.is_deleted) throw unauthorized('User no longer exists')
	const community = await findCommunity(sql, user.community_id)
	return {
		user: presentUser(user),
		community: community ? presentCommunity(community) : null,
		app_access: true,
		has_answers: true,
	}
}

type RefreshOutcome =
	| { ok: true; tokens: { access_token: string; refresh_token: string } }
	| { ok: false; reason: string; revoked?: { userId: number; familyId: string } }

export async function refreshSession(refreshToken: string | null) {
	if (!refreshToken) throw unauthorized('Missing refresh token')
	// The outcome is decided inside the transaction but thrown after it, so that a
	// revoked family stays revoked (a throw inside would roll the revocation back).
	const tokenHash = sha256(refreshToken)
	const communityId = await communityOfRefreshToken(refreshToken, tokenHash)
	if (communityId === null) throw unauthorized('Invalid refresh token')
	const outcome = await sql.begin(async (tx): Promise<RefreshOutcome> => {
		const row = await lockRefreshToken(tx, communityId, tokenHash)
		if (!row) return { ok: false, reason: 'Invalid refresh token' }
		if (row.revoked_at) return { ok: false, reason: 'Refresh token revoked' }
		if (row.rotated_at) {
			await revokeFamily(tx, communityId, row.family_id)
			return {
				ok: false,
				reason: 'Refresh token reused; session revoked',
				revoked: { userId: row.user_id, familyId: row.family_id },
			}
		}
		if (row.expires_at.getTime() < Date.now()) return { ok: false, reason: 'Refresh token expired' }
		const user = await findUserById(tx, communityId, row.user_id)
		if (!user || user.is_deleted) return { ok: false, reason: 'User no longer exists' }
		await markRotated(tx, communityId, row.token_hash)
		return { ok: true, tokens: await issueTokens(tx, user, row.family_id) }
	})
	if (!outcome.ok) {
		// After the commit: the family's access tokens stop too, within the request.
		if (outcome.revoked)
			await markFamiliesRevoked(outcome.revoked.userId, [outcome.revoked.familyId])
		throw unauthorized(outcome.reason)
	}
	return outcome.tokens
}

/**
 * Ends the caller's login (the access token's family) and the given refresh token's,
 * or every login of the user when no refresh token is given; their access tokens stop
 * at once.
 */
export async function logout(session: Session, refreshToken: string | undefined): Promise<void> {
	const own = session.familyId ? [session.familyId] : []
	if (!refreshToken) {
		const families = await revokeAllForUser(sql, session.communityId, session.userId)
		return markUserRevoked(session.userId, [...new Set([...own, ...families])])
	}
	// The caller's own token is of the caller's community (another community's is no row).
	const row = await lockRefreshToken(sql, session.communityId, sha256(refreshToken))
	const families = new Set(own)
	if (row && row.user_id === session.userId) families.add(row.family_id)
	for (const family of families) await revokeFamily(sql, session.communityId, family)
	await markFamiliesRevoked(session.userId, [...families])
}
