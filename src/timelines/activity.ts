// Feed activity: who read a feed lately, for the 24-hour recompute job. Written to
// Postgres at most once per 5 minutes per user (a Redis NX key gates the write), so
// feed reads stay Redis-only on the hot path.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { markFeedRead } from './connection-repo'

const THROTTLE_SECONDS = 300

export async function noteFeedRead(userId: number, communityId: number): Promise<void> {
	const first = await redis.set(keys.feedSeen(userId), '1', 'EX', THROTTLE_SECONDS, 'NX')
	if (first === 'OK') await markFeedRead(sql, userId, communityId, Date.now())
}
