// The stored role of a user, read once per request. Postgres holds it; Redis keeps a
// copy (5 minutes) whose GET travels in the same pipeline as the rate-limit INCR, so
// the hot feed path pays no extra round trip. A change writes the new role over the
// copy after its commit; a reader fills a missing copy with SET NX, so a reader that
// loaded the old role just before the change cannot overwrite the new one.
import { sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { log } from '../../lib/log'
import { redis } from '../../lib/redis'
import type { Role } from '../../lib/tokens'
import { setRole } from '../users/repo'
import { findCurrentRole } from './repo'

const ROLE_TTL_SECONDS = 300
const roles = new Set<string>(['member', 'cm', 'owner'])

/** The role stored now, or null for a user that no longer exists. */
export async function currentRole(userId: number): Promise<Role | null> {
	const key = keys.role(userId)
	const cached = await redis.get(key).catch(() => null)
	if (cached && roles.has(cached)) return cached as Role
	const role = await findCurrentRole(sql, userId)
	if (role)
		await redis.set(key, role, 'EX', ROLE_TTL_SECONDS, 'NX').catch((error: Error) => {
			log.warn({ err: error.message }, 'role cache fill failed')
		})
	return role
}

/**
 * Grants or removes a role; live tokens see it on their next request. (Should Redis
 * miss the new copy, the old one expires within ROLE_TTL_SECONDS.)
 */
export async function changeRole(userId: number, role: Role): Promise<void> {
	await setRole(sql, userId, role)
	await redis.set(keys.role(userId), role, 'EX', ROLE_TTL_SECONDS).catch((error: Error) => {
		log.error({ err: error.message, userId }, 'role cache update failed')
	})
}
