// Feed activity: who read a feed lately, for the 24-hour recompute job. Written to
// Postgres at most once per 5 minutes per user (a Redis NX key gates the write), so
// feed reads stay Redis-only on the hot path. A process that asked Redis for a user
// within the last NOTED_MS does not ask again: the key it found or set lives 5 minutes,
// so the answer would mostly be "already noted", and at worst the write comes
// NOTED_MS later (the job looks back 24 hours).
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { markFeedRead } from './connection-repo'

const THROTTLE_SECONDS = 300
const NOTED_MS = 60_000
const NOTED_MAX = 100_000

/** When this process last asked Redis about each user's read. */
const noted = new Map<number, number>()

export async function noteFeedRead(userId: number, communityId: number): Promise<void> {
	const now = Date.now()
	const last = noted.get(userId)
	if (last !== undefined && now - last < NOTED_MS) return
	if (noted.size >= NOTED_MAX) noted.clear()
	noted.set(userId, now)
	const first = await redis.set(keys.feedSeen(userId), '1', 'EX', THROTTLE_SECONDS, 'NX')
	if (first === 'OK') await markFeedRead(sql, userId, communityId, now)
}
