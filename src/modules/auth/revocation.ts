// Revocation that reaches access tokens: a logout or a detected refresh-token reuse
// marks the token family revoked in Redis, and every authenticated request checks its
// token's family there. The check is one HMGET of the user's auth hash, which also
// holds the user's role copy (roles.ts), issued beside the rate-limit INCR: one round
// trip, two commands, on every authenticated request. Postgres (refresh_tokens.revoked_at) is
// the truth: a Redis error falls back to it, and a request that finds no fresh role
// copy — every 5 minutes, and whenever the hash is gone with Redis's data — reads the
// user's recent revocations with the role and writes the marks back before the copy, so
// a lost hash never lets a revoked login in. Marks live as long as the longest access
// token.
//
// A token's passing answer (its role, not revoked) is kept in the process for
// STATE_TTL_MS, so a client's requests within that second ask Redis nothing (issue 40:
// the token's checks were half of an authenticated request's cost). A revocation or a
// role change drops the user's answers in the process that makes it, and reaches every
// other process when their copy expires: within a second, on one Redis or a Cluster,
// with no message that could be lost.
import { acrossCommunities, sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { log } from '../../lib/log'
import { redis } from '../../lib/redis'
import { type AccessClaims, MAX_ACCESS_TOKEN_MINUTES, type Role } from '../../lib/tokens'
import { signalLive, userChannel } from '../../live'
import { findRevokedFamilies, findStoredAuth, type StoredAuth } from './repo'
import { authFromCopy, ROLE_FIELD, refillRole } from './roles'
import { forgetTokenStates, keepState, keptState } from './token-states'

const MARK_TTL_SECONDS = MAX_ACCESS_TOKEN_MINUTES * 60 + 300
const ALL = 'all'
export async function markFamiliesRevoked(userId: number, familyIds: string[]): Promise<void> {
	if (familyIds.length === 0) return
	forgetTokenStates(userId)
	const key = keys.revocations(userId)
	const fields = familyIds.flatMap((id) => [`f:${id}`, '1'])
	await redis
		.multi()
		.hset(key, ...fields)
		.expire(key, MARK_TTL_SECONDS)
		.exec()
	// Live connections of this user (any api process) re-check their tokens now.
	await signalLive(userChannel(userId), 'revoked')
}

/** Every token of the user, also those signed without a family (issued by scripts). */
export async function markUserRevoked(userId: number, familyIds: string[]): Promise<void> {
	forgetTokenStates(userId)
	const key = keys.revocations(userId)
	await redis
		.multi()
		.hset(key, ALL, String(Math.floor(Date.now() / 1000)))
		.expire(key, MARK_TTL_SECONDS)
		.exec()
	await markFamiliesRevoked(userId, familyIds)
	if (familyIds.length === 0) await signalLive(userChannel(userId), 'revoked')
}

/** What the token's checks found: its role stored now (null: user gone), removed rights, whether it was revoked. */
export interface TokenState {
	role: Role | null
	deniedRights: readonly number[]
	revoked: boolean
}

const storedAuth = (claims: AccessClaims): Promise<StoredAuth> =>
	findStoredAuth(sql, claims.cid, claims.uid, MAX_ACCESS_TOKEN_MINUTES)

/**
 * The token's revocation marks and the user's role copy (roles.ts) in one HMGET of the
 * user's auth hash. Without a fresh copy both come from Postgres (storedAuth), and the
 * hash gets the marks, then the copy. A Redis error falls back to Postgres for both.
 */
export async function tokenState(claims: AccessClaims): Promise<TokenState> {
	const kept = keptState(claims)
	if (kept) return { role: kept.role, deniedRights: kept.deniedRights, revoked: false }
	const sent = Date.now()
	const state = await checkToken(claims)
	if (state.role && !state.revoked)
		keepState(claims, { role: state.role, deniedRights: state.deniedRights }, sent)
	return state
}

/** The token's checks in Redis (Postgres when Redis fails or lost the copy). */
async function checkToken(claims: AccessClaims): Promise<TokenState> {
	const fid = claims.fid
	let answers: (string | null)[]
	try {
		answers = await redis.hmget(keys.revocations(claims.uid), `f:${fid ?? ''}`, ALL, ROLE_FIELD)
	} catch (error) {
		log.warn({ err: (error as Error).message }, 'token checks fell back to Postgres')
		const stored = await storedAuth(claims)
		return { ...storedState(stored), revoked: revokedIn(stored, fid) }
	}
	const [family, all, copy] = answers as [string | null, string | null, string | null]
	const marked = fid ? family !== null : all !== null && (claims.iat ?? 0) <= Number(all)
	const fresh = authFromCopy(copy)
	if (fresh) return { ...fresh, revoked: marked }
	const stored = await storedAuth(claims)
	await restoreHash(claims.uid, copy, stored)
	return { ...storedState(stored), revoked: marked || revokedIn(stored, fid) }
}

const storedState = (stored: StoredAuth) => ({
	role: stored.role,
	deniedRights: stored.deniedRights,
})

const revokedIn = (stored: StoredAuth, fid: string | undefined) =>
	fid !== undefined && stored.revokedFamilies.includes(fid)

/**
 * The user's auth hash as Postgres has it: the revocation marks first (a hash lost with
 * Redis lost them too), then the role copy over the one seen — so no request finds a
 * fresh copy in a hash that lacks a mark. Should the marks fail, the copy is not written
 * and the next request reads Postgres again.
 */
async function restoreHash(userId: number, seen: string | null, stored: StoredAuth) {
	if (!stored.role) return
	try {
		await markFamiliesRevoked(userId, stored.revokedFamilies)
	} catch (error) {
		log.warn({ err: (error as Error).message, userId }, 'revocation marks not restored')
		return
	}
	await refillRole(userId, seen, stored.role, stored.deniedRights)
}

/**
 * After a Redis loss: the marks of families revoked within an access token's lifetime,
 * in every community (a named cross-community read).
 */
export async function restoreRevocations(): Promise<number> {
	const rows = await acrossCommunities((tx) => findRevokedFamilies(tx, MAX_ACCESS_TOKEN_MINUTES))
	const byUser = new Map<number, string[]>()
	for (const row of rows)
		byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.family_id])
	for (const [userId, families] of byUser) await markFamiliesRevoked(userId, families)
	return rows.length
}
