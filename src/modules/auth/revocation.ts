// Revocation that reaches access tokens: a logout or a detected refresh-token reuse
// marks the token family revoked in Redis, and every authenticated request checks its
// token's family there. The marks are read by the request's one check script, beside
// the role and the rate-limit counter (request-checks.ts): no extra round trip on the
// feed path. Postgres (refresh_tokens.revoked_at) is the truth: restoreRevocations()
// rebuilds the marks after Redis lost them (a Redis error answers 503, as the rate
// limit's did). Marks live as long as the longest access token.
import type { Db } from '../../lib/db'
import { keys } from '../../lib/keys'
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

/** The two marks that revoke a token: its family's, and its user's (for tokens without a family). */
export const revocationFields = (claims: AccessClaims): [string, string] => [
	`f:${claims.fid ?? ''}`,
	ALL,
]

/** True when the token's family (or, for a family-less token, its user) was revoked. */
export function revokedBy(
	claims: AccessClaims,
	familyMark: string | null,
	userMark: string | null,
): boolean {
	if (claims.fid) return familyMark !== null
	return userMark !== null && (claims.iat ?? 0) <= Number(userMark)
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
