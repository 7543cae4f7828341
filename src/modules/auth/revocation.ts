// Revocation that reaches access tokens: a logout or a detected refresh-token reuse
// marks the token family revoked in Redis, and every authenticated request checks its
// token's family there. The check is one HMGET of the user's auth hash, which also
// holds the user's role copy (roles.ts), issued beside the rate-limit INCR: one round
// trip, two commands, on every authenticated request. Postgres (refresh_tokens.revoked_at) is
// the truth: a Redis error falls back to it, and restoreRevocations() rebuilds the
// marks after Redis lost them. Marks live as long as the longest access token.
import type { Db } from '../../lib/db'
import { sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { log } from '../../lib/log'
import { redis } from '../../lib/redis'
import { type AccessClaims, MAX_ACCESS_TOKEN_MINUTES, type Role } from '../../lib/tokens'
import { findCurrentRole } from './repo'
import { loadRole, ROLE_FIELD, roleFromCopy } from './roles'

const MARK_TTL_SECONDS = MAX_ACCESS_TOKEN_MINUTES * 60 + 300
const ALL = 'all'

export async function markFamiliesRevoked(userId: number, familyIds: string[]): Promise<void> {
	if (familyIds.length === 0) return
	const key = keys.revocations(userId)
	const fields = familyIds.flatMap((id) => [`f:${id}`, '1'])
	await redis
		.multi()
		.hset(key, ...fields)
		.expire(key, MARK_TTL_SECONDS)
		.exec()
}

/** Every token of the user, also those signed without a family (issued by scripts). */
export async function markUserRevoked(userId: number, familyIds: string[]): Promise<void> {
	const key = keys.revocations(userId)
	await redis
		.multi()
		.hset(key, ALL, String(Math.floor(Date.now() / 1000)))
		.expire(key, MARK_TTL_SECONDS)
		.exec()
	await markFamiliesRevoked(userId, familyIds)
}

async function revokedInPostgres(familyId: string): Promise<boolean> {
	const [row] = await sql`
		select 1 from refresh_tokens where family_id = ${familyId} and revoked_at is not null limit 1`
	return row !== undefined
}

/** What the token's checks found: its role stored now (null: user gone) and whether it was revoked. */
export interface TokenState {
	role: Role | null
	revoked: boolean
}

/**
 * The token's revocation marks and the user's role copy (roles.ts) in one HMGET of the
 * user's auth hash; a missing or expired role copy is read from Postgres and refilled.
 * A Redis error falls back to Postgres for both.
 */
export async function tokenState(claims: AccessClaims): Promise<TokenState> {
	const fid = claims.fid
	let answers: (string | null)[]
	try {
		answers = await redis.hmget(keys.revocations(claims.uid), `f:${fid ?? ''}`, ALL, ROLE_FIELD)
	} catch (error) {
		log.warn({ err: (error as Error).message }, 'token checks fell back to Postgres')
		const [revoked, role] = await Promise.all([
			fid ? revokedInPostgres(fid) : false,
			findCurrentRole(sql, claims.uid),
		])
		return { revoked, role }
	}
	const [family, all, copy] = answers as [string | null, string | null, string | null]
	const revoked = fid ? family !== null : all !== null && (claims.iat ?? 0) <= Number(all)
	const role = roleFromCopy(copy) ?? (await loadRole(claims.uid, copy))
	return { revoked, role }
}

/** After a Redis loss: the marks of families revoked within an access token's lifetime. */
export async function restoreRevocations(db: Db): Promise<number> {
	const rows = await db<{ user_id: number; family_id: string }[]>`
		select distinct user_id, family_id from refresh_tokens
		where revoked_at > now() - make_interval(mins => ${MAX_ACCESS_TOKEN_MINUTES})`
	const byUser = new Map<number, string[]>()
	for (const row of rows)
		byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.family_id])
	for (const [userId, families] of byUser) await markFamiliesRevoked(userId, families)
	return rows.length
}
