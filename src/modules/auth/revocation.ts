// Revocation that reaches access tokens: a logout or a detected refresh-token reuse
// marks the token family revoked in Redis, and every authenticated request checks its
// token's family there. The check is one HMGET on the user's tag, issued beside the
// role GET and the rate-limit INCR, so auto-pipelining sends the three in one round
// trip (no extra round trip on the feed path). Postgres (refresh_tokens.revoked_at) is
// the truth: a Redis error falls back to it, and restoreRevocations() rebuilds the
// marks after Redis lost them. Marks live as long as the longest access token.
import type { Db } from '../../lib/db'
import { sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { log } from '../../lib/log'
import { redis } from '../../lib/redis'
import { type AccessClaims, MAX_ACCESS_TOKEN_MINUTES } from '../../lib/tokens'

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

/** True when the token's family (or, for a family-less token, its user) was revoked. */
export async function isRevoked(claims: AccessClaims): Promise<boolean> {
	const fid = claims.fid
	try {
		const [family, all] = await redis.hmget(keys.revocations(claims.uid), `f:${fid ?? ''}`, ALL)
		if (fid) return family !== null
		return all !== null && (claims.iat ?? 0) <= Number(all)
	} catch (error) {
		log.warn({ err: (error as Error).message }, 'revocation check fell back to Postgres')
		return fid ? revokedInPostgres(fid) : false
	}
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
