// Fixed-window rate limits in Redis (one command per request: a script that counts and,
// on a window's first hit, sets its expiry). Per user for authenticated calls (counted
// by the auth check's own script, modules/auth/request-checks.ts), per IP for everything.
import { config } from '../config'
import { tooManyRequests } from './errors'
import { keys } from './keys'
import { redis } from './redis'

const WINDOW_MS = 60_000
/** A window key outlives its minute by a second, so a late hit never restarts a count. */
export const WINDOW_TTL_MS = WINDOW_MS + 1000

// INCR, and PEXPIRE on the first hit: one round trip where the two commands took two
// on a window's first request (and a lost PEXPIRE could leave a counter forever).
redis.defineCommand('countHit', {
	numberOfKeys: 1,
	lua: `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`,
})

type CountHit = (key: string, ttlMs: number) => Promise<number>

/** The counter key of `scope`/`id` for the window `now` falls in. */
export const windowKey = (scope: 'ip' | 'user', id: string, now: number) =>
	keys.rateLimit(scope, id, Math.floor(now / WINDOW_MS))

/** 429 with Retry-After (the rest of the window) once `count` passes `perMinute`. */
export function assertWithin(count: number, perMinute: number, now: number): void {
	if (count > perMinute) throw tooManyRequests(Math.ceil((WINDOW_MS - (now % WINDOW_MS)) / 1000))
}

export async function limit(scope: 'ip' | 'user', id: string, perMinute: number): Promise<void> {
	const now = Date.now()
	const count = await (redis as unknown as { countHit: CountHit }).countHit(
		windowKey(scope, id, now),
		WINDOW_TTL_MS,
	)
	assertWithin(count, perMinute, now)
}

export const limitIp = (ip: string) => limit('ip', ip, config.RATE_LIMIT_IP_PER_MINUTE)

// The per-IP limit of a request is started when it arrives and awaited where the
// request is first decided (the auth check, the body parser, or before the handler),
// so its command travels beside the auth's own instead of a round trip ahead.
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
