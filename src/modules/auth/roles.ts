// The stored role and rights of a user, read once per request. Postgres holds them;
// Redis keeps a copy in the user's auth hash (keys.revocations, field `role`, value
// `<role>|<expiry ms>`, followed by `|<states>` when a CM removed rights: rights.ts),
// read by the same HMGET as the token's revocation marks (revocation.ts): the hot path
// pays one command for all. The
// copy expires by the time in its value (5 minutes: the hash lives as long as its
// marks). A change writes the new copy after its commit; a reader refills an absent or
// expired copy only while it is still the one it saw (a script, on this rare path), so
// a reader that loaded the old role just before the change cannot overwrite the new one.
import { sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { log } from '../../lib/log'
import { redis } from '../../lib/redis'
import type { Role } from '../../lib/tokens'
import { setRole } from '../users/repo'
import { forgetTokenStates } from './token-states'

const ROLE_TTL_MS = 300_000
/** The hash's own life when the role copy created it (marks extend it: revocation.ts). */
const HASH_TTL_SECONDS = ROLE_TTL_MS / 1000
export const ROLE_FIELD = 'role'
const roles = new Set<string>(['member', 'cm', 'owner'])

// KEYS[1] the auth hash; ARGV: the copy the reader saw ('' for none), the new copy, the
// hash's life. Writes only over what was seen; gives the hash a life if it has none.
redis.defineCommand('roleRefill', {
	numberOfKeys: 1,
	lua: `
local seen = redis.call('HGET', KEYS[1], 'role')
if (seen or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'role', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3], 'NX')
return 1`,
})
const commands = redis as unknown as {
	roleRefill(key: string, seen: string, copy: string, hashTtl: number): Promise<number>
}

const copyOf = (role: Role, denied: readonly number[]) => {
	const copy = `${role}|${Date.now() + ROLE_TTL_MS}`
	return denied.length > 0 ? `${copy}|${denied.join(',')}` : copy
}

/** What a fresh copy holds: the role and the rights a CM removed. */
export interface AuthCopy {
	role: Role
	deniedRights: number[]
}

/** The role and removed rights a copy holds while it is fresh; undefined for none, expired or unreadable. */
export function authFromCopy(copy: string | null): AuthCopy | undefined {
	if (!copy) return undefined
	const [role = '', expiry, denied = ''] = copy.split('|')
	if (!roles.has(role) || !(Number(expiry) > Date.now())) return undefined
	return { role: role as Role, deniedRights: denied ? denied.split(',').map(Number) : [] }
}

/** The role a copy holds while it is fresh; undefined for none, expired or unreadable. */
export const roleFromCopy = (copy: string | null): Role | undefined => authFromCopy(copy)?.role

/** Writes the copy of `role` and `denied`, read from Postgres, over the copy `seen` was (if it still is). */
export async function refillRole(
	userId: number,
	seen: string | null,
	role: Role,
	denied: readonly number[] = [],
): Promise<void> {
	await commands
		.roleRefill(keys.revocations(userId), seen ?? '', copyOf(role, denied), HASH_TTL_SECONDS)
		.catch((error: Error) => log.warn({ err: error.message }, 'role cache fill failed'))
}

/** Writes the copy of what Postgres now holds for the user after a change committed. */
export async function writeAuthCopy(
	userId: number,
	role: Role,
	denied: readonly number[],
): Promise<void> {
	forgetTokenStates(userId)
	const key = keys.revocations(userId)
	await redis
		.multi()
		.hset(key, ROLE_FIELD, copyOf(role, denied))
		.expire(key, HASH_TTL_SECONDS, 'NX')
		.exec()
		.catch((error: Error) => log.error({ err: error.message, userId }, 'role cache update failed'))
}

/**
 * Grants or removes a role (the member's removed rights, `denied`, go into the copy
 * with it); live tokens see it on their next request. (Should Redis miss the new
 * copy, the old one expires within ROLE_TTL_MS.)
 */
export async function changeRole(
	communityId: number,
	userId: number,
	role: Role,
	denied: readonly number[],
): Promise<void> {
	await setRole(sql, communityId, userId, role)
	await writeAuthCopy(userId, role, denied)
}
