// The Redis side of an access token's check, in ONE command per request (issue 14): the
// user's rate-limit counter, the stored role (roles.ts) and the revocation marks of the
// token's login (revocation.ts) share the user's hash tag ({user<id>}), so one script
// counts and reads them together, on a Redis Cluster too. It was three commands (four
// on a window's first request).
import { config } from '../../config'
import { keys } from '../../lib/keys'
import { assertWithin, WINDOW_TTL_MS, windowKey } from '../../lib/rate-limit'
import { redis } from '../../lib/redis'
import type { AccessClaims, Role } from '../../lib/tokens'
import { revocationFields, revokedBy } from './revocation'
import { storedRole } from './roles'

redis.defineCommand('tokenChecks', {
	numberOfKeys: 3,
	lua: `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local marks = redis.call('HMGET', KEYS[3], ARGV[2], ARGV[3])
return {n, redis.call('GET', KEYS[2]), marks[1], marks[2]}`,
})

type TokenChecks = (
	rateKey: string,
	roleKey: string,
	revocationKey: string,
	rateTtlMs: number,
	familyField: string,
	userField: string,
) => Promise<[number, string | null, string | null, string | null]>

export interface TokenState {
	/** The role stored now; null for a user that no longer exists. */
	role: Role | null
	revoked: boolean
}

/** Counts the request against the user's limit (429 past it) and reads the role and revocation marks. */
export async function checkToken(claims: AccessClaims): Promise<TokenState> {
	const now = Date.now()
	const user = claims.uid
	const [count, cachedRole, familyMark, userMark] = await (
		redis as unknown as { tokenChecks: TokenChecks }
	).tokenChecks(
		windowKey('user', String(user), now),
		keys.role(user),
		keys.revocations(user),
		WINDOW_TTL_MS,
		...revocationFields(claims),
	)
	assertWithin(count, config.RATE_LIMIT_PER_MINUTE, now)
	return {
		role: await storedRole(user, cachedRole),
		revoked: revokedBy(claims, familyMark, userMark),
	}
}
