// Fixed-window rate limits in Redis (one INCR per request, the window key expires
// by itself). Per user for authenticated calls, per IP for everything; `logs` and
// `preview` are a member's own budgets for client error reports (POST /logs) and page
// fetches for link previews (GET /helper/url).
import { config } from '../config'
import { tooManyRequests } from './errors'
import { keys } from './keys'
import { redis } from './redis'

export async function limit(
	scope: 'ip' | 'user' | 'logs' | 'preview',
	id: string,
	perMinute: number,
): Promise<void> {
	const now = Date.now()
	const window = Math.floor(now / 60_000)
	const key = keys.rateLimit(scope, id, window)
	const count = await redis.incr(key)
	if (count === 1) await redis.pexpire(key, 61_000)
	if (count > perMinute) throw tooManyRequests(Math.ceil(((window + 1) * 60_000 - now) / 1000))
}

export const limitIp = (ip: string) => limit('ip', ip, config.RATE_LIMIT_IP_PER_MINUTE)

// The per-IP limit of a request is started when it arrives and awaited where the
// request is first decided (the auth check, the body parser, or before the handler),
// so its INCR travels beside the auth's own commands instead of a round trip ahead.
const ipLimits = new WeakMap<Request, Promise<void>>()

export function startIpLimit(request: Request, ip: string): void {
	const limited = limitIp(ip)
	// Observed now so an early 429 is never an unhandled rejection; reported by ipLimited().
	limited.catch(() => {})
	ipLimits.set(request, limited)
}

/** The request's per-IP limit: rejects with 429 past it (resolved for exempt paths). */
export const ipLimited = (request: Request): Promise<void> =>
	ipLimits.get(request) ?? Promise.resolve()
export const limitUser = (userId: number) =>
	limit('user', String(userId), config.RATE_LIMIT_PER_MINUTE)
