// Fixed-window rate limits in Redis (the window key expires by itself). Per user for
// authenticated calls, per IP for everything. `limit` sends one INCR per request and
// waits for it (the OTP sends: exact across processes). The per-user and per-IP limits
// of every request are counted in the process and sent in batches instead (`counted`):
// a request waits for no round trip, and each window's count reaches Redis within
// FLUSH_MS, where every process adds its own and learns the others'. A process decides
// on the count it last learned plus what it has not sent; with several processes a
// client can pass the limit by what they admit in one FLUSH_MS before they learn it.
// `logs` and `preview` are a member's own exact budgets for client error reports
// (POST /logs) and page fetches for link previews (GET /helper/url), counted by `limit`.
import { config } from '../config'
import { tooManyRequests } from './errors'
import { keys } from './keys'
import { log } from './log'
import { redis } from './redis'
import { groupBySlotOwner } from './redis-slots'

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

const FLUSH_MS = 100

interface WindowCount {
	/** The window's count in Redis as last learned (every process's). */
	known: number
	/** Counted here and sent, not answered yet. */
	sending: number
	/** Counted here, not sent yet. */
	pending: number
	window: number
}

const counts = new Map<string, WindowCount>()
let flushing: ReturnType<typeof setInterval> | null = null

/** Sends every window's unsent count (INCRBY) and learns the totals; drops past windows. */
async function flushCounts(): Promise<void> {
	const current = Math.floor(Date.now() / 60_000)
	const sent: [string, WindowCount, number][] = []
	for (const [key, count] of counts) {
		if (count.pending === 0) {
			if (count.window < current && count.sending === 0) counts.delete(key)
			continue
		}
		const n = count.pending
		sent.push([key, count, n])
		count.sending += n
		count.pending = 0
	}
	// One pipeline per slot owner: on a Cluster the users' keys live on every node.
	await Promise.all(groupBySlotOwner(redis, sent, ([key]) => key).map(sendCounts))
}

async function sendCounts(group: [string, WindowCount, number][]): Promise<void> {
	const pipeline = redis.pipeline()
	for (const [key, , n] of group) pipeline.incrby(key, n).pexpire(key, 61_000)
	try {
		const answers = (await pipeline.exec()) ?? []
		group.forEach(([, count, n], i) => {
			const [error, total] = answers[i * 2] ?? [new Error('no answer'), null]
			count.sending -= n
			if (error) count.pending += n
			else count.known = Math.max(count.known, Number(total))
		})
	} catch (error) {
		log.warn({ err: (error as Error).message }, 'rate-limit counts not sent')
		for (const [, count, n] of group) {
			count.sending -= n
			count.pending += n
		}
	}
}

/** Counts one request in the process; 429 once the window's count passes `perMinute`. */
export function counted(scope: 'ip' | 'user', id: string, perMinute: number): Promise<void> {
	const now = Date.now()
	const window = Math.floor(now / 60_000)
	const key = keys.rateLimit(scope, id, window)
	let count = counts.get(key)
	if (!count) {
		count = { known: 0, sending: 0, pending: 0, window }
		counts.set(key, count)
	}
	count.pending++
	flushing ??= setInterval(() => void flushCounts(), FLUSH_MS)
	flushing.unref?.()
	if (count.known + count.sending + count.pending > perMinute)
		return Promise.reject(tooManyRequests(Math.ceil(((window + 1) * 60_000 - now) / 1000)))
	return Promise.resolve()
}

export const limitIp = (ip: string) => counted('ip', ip, config.RATE_LIMIT_IP_PER_MINUTE)

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
	counted('user', String(userId), config.RATE_LIMIT_PER_MINUTE)
