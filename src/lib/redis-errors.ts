// Failures of Redis writes that are allowed to fail (derived caches converge on
// Postgres through TTLs and rebuilds) — counted, never silent, never a flood. A
// cross-slot error is a bug in how keys were grouped, not an outage: it is logged once
// per operation for the life of the process; other errors once per operation a minute.
// Both are counted in /metrics as redis_write_errors_total{operation, kind}.
import { Counter } from 'prom-client'
import { log } from './log'
import { registry } from './metrics'

const LOG_EVERY_MS = 60_000

const redisWriteErrors = new Counter({
	name: 'redis_write_errors_total',
	help: 'Failed Redis writes of derived data (caches, feeds) by operation and kind (crossslot, other)',
	labelNames: ['operation', 'kind'],
	registers: [registry],
})

const lastLogged = new Map<string, number>()

/** True for the errors Redis Cluster (or ioredis' cluster client) gives keys of several slots. */
export function isCrossSlot(error: unknown): boolean {
	const message = error instanceof Error ? error.message : String(error)
	return /CROSSSLOT|same slot|slots allocation group/i.test(message)
}

/**
 * True when Redis could not be reached for a command (lib/redis.ts gives up after
 * riding out a few seconds of reconnection): an outage, answered 503, not a defect.
 */
export function isRedisUnavailable(error: unknown): boolean {
	if (!(error instanceof Error)) return false
	return (
		error.name === 'MaxRetriesPerRequestError' ||
		/Reached the max retries per request limit|Connection is closed|ECONNREFUSED|ClusterAllFailedError|None of startup nodes is available/.test(
			error.message,
		)
	)
}

/** Counts a failed write and logs it unless the same operation and kind was logged lately. */
export function reportRedisError(operation: string, error: unknown): void {
	const kind = isCrossSlot(error) ? 'crossslot' : 'other'
	redisWriteErrors.inc({ operation, kind })
	const key = `${operation}:${kind}`
	const now = Date.now()
	const last = lastLogged.get(key)
	if (last !== undefined && (kind === 'crossslot' || now - last < LOG_EVERY_MS)) return
	lastLogged.set(key, now)
	log.error(
		{ err: error, operation, kind },
		kind === 'crossslot'
			? 'redis cross-slot error (keys of several slots in one command); counted in redis_write_errors_total, logged once'
			: 'redis write failed; counted in redis_write_errors_total, logged at most once a minute',
	)
}

/**
 * Runs a Redis write that may fail without failing its caller; a failure is reported.
 * True when the write went through (a caller holding a durable mark confirms it then).
 */
export async function quietly(operation: string, work: () => Promise<unknown>): Promise<boolean> {
	try {
		await work()
		return true
	} catch (error) {
		reportRedisError(operation, error)
		return false
	}
}
