// Fixed-window rate limits in Redis (one INCR per request, the window key expires
// by itself). Per user for authenticated calls, per IP for everything.
import { config } from '../config'
import { tooManyRequests } from './errors'
import { keys } from './keys'
import { redis } from './redis'

export async function limit(scope: 'ip' | 'user', id: string, perMinute: number): Promise<void> {
	const now = Date.now()
	const window = Math.floor(now / 60_000)
	const key = keys.rateLimit(scope, id, window)
	const count = await redis.incr(key)
	if (count === 1) await redis.pexpire(key, 61_000)
	if (count > perMinute) throw tooManyRequests(Math.ceil(((window + 1) * 60_000 - now) / 1000))
}

export const limitIp = (ip: string) => limit('ip', ip, config.RATE_LIMIT_IP_PER_MINUTE)
export const limitUser = (userId: number) =>
	limit('user', String(userId), config.RATE_LIMIT_PER_MINUTE)
