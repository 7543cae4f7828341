// The one door into live delivery: `publishLive(scope, event)`, called by a writer AFTER
// its transaction committed. One Lua script per event, on the scope's hash tag: XADD to
// the scope's stream (bounded, `MAXLEN ~ 1000`: the resume window) and publish the id and
// the event on the scope's channel (SPUBLISH on a cluster, so only the shard that owns
// the slot carries it; PUBLISH standalone; channel.ts names the channel). The stream id is the event's id: clients
// resume after it and de-duplicate by it.
//
// A failed publish is logged and counted, never thrown: Postgres has committed and the
// caller's answer must not fail for a notification. The scope is then owed a `reset`
// marker, which reaches connected clients as a `reset` frame and stays in the stream for
// resuming ones — they refetch, never silence. What is owed is written to Postgres
// (live_owed_resets, owed.ts) and paid by the worker's reconciler once Redis takes
// writes again, whoever wrote it and whether or not that process still lives. Only when
// Postgres refuses the mark too does this process keep it in memory, retried every second.
import { Cluster } from 'ioredis'
import { sql } from '../lib/db'
import { log } from '../lib/log'
import { redis } from '../lib/redis'
import { channelOf } from './channel'
import { livePublishFailures } from './metrics'
import { markOwed } from './owed-repo'
import type { LiveChannel, LiveScope } from './scopes'

/** What a writer publishes: a type (`conversation.new`, `badge`, …) and its data. */
export interface LiveEvent {
	type: string
	data: Record<string, unknown>
}

export const STREAM_MAX_LEN = 1000

const sharded = redis instanceof Cluster

/** A scope quiet for a day loses its history: a client resuming after that gets `reset`. */
export const STREAM_TTL_SECONDS = 86_400

// KEYS[1] the stream; ARGV[1] max length, ARGV[2] event JSON, ARGV[3] '1' to SPUBLISH,
// ARGV[4] the stream's time to live, ARGV[5] the channel (channel.ts: same slot).
const script = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call(ARGV[3] == '1' and 'SPUBLISH' or 'PUBLISH', ARGV[5], id .. '\\n' .. ARGV[2])
return id`

// The same for many scopes at once (standalone only: the keys span slots). KEYS the
// streams; ARGV[1] max length, ARGV[2] time to live, ARGV[3] what channel.ts appends to a
// key to name its channel, ARGV[3 + i] the event of KEYS[i].
const manyScript = `
for i, key in ipairs(KEYS) do
	local id = redis.call('XADD', key, 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[3 + i])
	redis.call('EXPIRE', key, ARGV[2])
	redis.call('PUBLISH', key .. ARGV[3], id .. '\\n' .. ARGV[3 + i])
end
return #KEYS`

type WithLive = {
	livePublishMany(...args: (string | number)[]): Promise<number>
	livePublish(
		key: string,
		max: number,
		json: string,
		sharded: string,
		ttl: number,
		channel: string,
	): Promise<string>
}
redis.defineCommand('livePublish', { numberOfKeys: 1, lua: script })
redis.defineCommand('livePublishMany', { lua: manyScript })
const scripted = redis as unknown as WithLive

/** The type of the marker a scope gets after a lost event (hub.ts frames it as `reset`). */
export const RESET_EVENT = 'reset'

const append = (key: string, json: string) =>
	scripted.livePublish(
		key,
		STREAM_MAX_LEN,
		json,
		sharded ? '1' : '0',
		STREAM_TTL_SECONDS,
		channelOf(key),
	)

/** Appends and publishes a `reset` marker on the stream `key`; rejects when Redis refuses. */
export const appendReset = (key: string): Promise<string> =>
	append(key, JSON.stringify({ type: RESET_EVENT, at: Date.now(), data: {} }))

/** Appends and publishes one event; its stream id, or null when Redis did not take it. */
export async function publishLive(scope: LiveScope, event: LiveEvent): Promise<string | null> {
	// `at` is the commit time as the writer saw it: the reader's commit→send lag.
	const json = JSON.stringify({ type: event.type, at: Date.now(), data: event.data })
	try {
		return await append(scope.key, json)
	} catch (error) {
		await failed(scope, error as Error)
		return null
	}
}

// The durable mark costs one statement per failed publish and nothing on success. Once it
// is written the reconciler alone pays it: one owner, one reset per failure, and a
// dead process loses nothing (paying it here as well would only save the worker's
// pass interval, a few seconds, on a marker that already means "refetch").
async function oweReset(scope: LiveScope): Promise<void> {
	try {
		await markOwed(sql, scope.communityId, scope.key)
	} catch (error) {
		log.error(
			{ err: (error as Error).message, scope: scope.name },
			'live reset owed in memory only: Postgres refused its mark',
		)
		oweInMemory(scope.key)
	}
}

/**
 * Many events to many scopes in one round trip (a page of a room's participants):
 * standalone, one script appends and publishes them all (one command, not a thousand:
 * the sender's and Redis' cost per command is most of a small event's); on a cluster the
 * scopes hash to many slots, which one script or pipeline may not span, so publishLive's
 * script per event, the calls leaving together through ioredis' auto-pipelining (one
 * write per master). Each failure is counted and owes its scope a `reset`, as
 * publishLive's; the number published comes back.
 */
export async function publishLiveMany(
	items: { scope: LiveScope; event: LiveEvent }[],
): Promise<number> {
	if (items.length === 0) return 0
	const at = Date.now()
	const jsons = items.map(({ event }) => JSON.stringify({ type: event.type, at, data: event.data }))
	const results = sharded
		? await Promise.all(
				items.map(({ scope }, i) =>
					append(scope.key, jsons[i] as string).then(
						() => null,
						(error: Error) => error,
					),
				),
			)
		: await inOneScript(items, jsons)
	const failures = results.flatMap((error, i) =>
		error ? [failed((items[i] as { scope: LiveScope }).scope, error)] : [],
	)
	await Promise.all(failures)
	return results.length - failures.length
}

async function inOneScript(
	items: { scope: LiveScope }[],
	jsons: string[],
): Promise<(Error | null)[]> {
	try {
		await scripted.livePublishMany(
			items.length,
			...items.map(({ scope }) => scope.key),
			STREAM_MAX_LEN,
			STREAM_TTL_SECONDS,
			channelOf(''),
			...jsons,
		)
		return items.map(() => null)
	} catch (error) {
		return items.map(() => error as Error)
	}
}

function failed(scope: LiveScope, error: Error): Promise<void> {
	livePublishFailures.inc()
	log.warn({ err: error.message, scope: scope.name }, 'live event not published')
	return oweReset(scope)
}

const owed = new Set<string>()
let retrying: ReturnType<typeof setInterval> | undefined

function oweInMemory(key: string): void {
	owed.add(key)
	retrying ??= setInterval(() => void payInMemory(), 1000)
	retrying.unref()
}

async function payInMemory(): Promise<void> {
	for (const key of owed) {
		try {
			await appendReset(key)
			owed.delete(key)
		} catch {
			return
		}
	}
	if (owed.size === 0 && retrying) {
		clearInterval(retrying)
		retrying = undefined
	}
}

/**
 * A control signal on a scope's channel, not kept in its stream: `revoked` on a user's
 * `me` channel tells every process holding that user's connections to check their tokens.
 */
export async function signalLive(scope: LiveChannel, signal: 'revoked'): Promise<void> {
	try {
		const channel = channelOf(scope.key)
		if (sharded) await (redis as Cluster).spublish(channel, `!${signal}`)
		else await redis.publish(channel, `!${signal}`)
	} catch (error) {
		log.warn({ err: (error as Error).message, scope: scope.name }, 'live signal not published')
	}
}
