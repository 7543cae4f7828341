// The Redis user cache: a community's users in their feed form, read through
// read-through.ts and dropped when a user's name, image or deleted state changes
// (forgetUsers, called after the commit through feed-manager.ts). A failed drop is
// counted and logged (lib/redis-errors.ts); the TTL makes the cache converge anyway.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { quietly } from '../lib/redis-errors'
import { presentFeedUser, userFromFeed } from './present'
import { dropCached, readThrough } from './read-through'
import { type CachedUser, loadUsers } from './repo'

const USER_TTL_SECONDS = 600

export async function forgetUsers(communityId: number, userIds: number[]): Promise<void> {
	if (userIds.length === 0) return
	await quietly('forgetUsers', () =>
		dropCached(
			communityId,
			userIds.map((id) => keys.userCache(communityId, id)),
			USER_TTL_SECONDS,
		),
	)
}

// A cached user is its feed form (presentFeedUser) serialized; the object form is
// read back from it, and feed pages splice the bytes as they are.
function cachedUsers<T>(
	communityId: number,
	ids: number[],
	decode: (raw: Buffer) => T,
): Promise<Map<number, T>> {
	const load = async (missing: number[]) =>
		(await loadUsers(sql, communityId, missing)).map(
			(user) => [user.id, JSON.stringify(presentFeedUser(user))] as const,
		)
	return readThrough(ids, (id) => keys.userCache(communityId, id), load, USER_TTL_SECONDS, decode)
}

export function getUsers(communityId: number, ids: number[]): Promise<Map<number, CachedUser>> {
	return cachedUsers(communityId, ids, (raw) => userFromFeed(JSON.parse(raw.toString())))
}

/** Users in their serialized feed form (the hot path of feed pages). */
export function getUserViews(communityId: number, ids: number[]): Promise<Map<number, Buffer>> {
	return cachedUsers(communityId, ids, (raw) => raw)
}
