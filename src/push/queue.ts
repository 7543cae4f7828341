// The Redis side of push sending, the webhook schedule's twin (events/queue.ts holds
// the Lua scripts; they are the one home of the lease rules): Postgres rows are the
// truth, Redis says when each pending delivery is due.
//   due      ZSET score = due time (ms)
//   inflight ZSET score = lease deadline (ms)
// Members are `<communityId>:<deliveryId>`, so the claim can cap what one project has
// in flight in this worker (bounded concurrency per project).
import type { Result } from 'ioredis'
import { claimScript, reapScript, requeueScript } from '../events/queue'
import { keys } from '../lib/keys'
import { type RedisClient, redis } from '../lib/redis'

declare module 'ioredis' {
	interface RedisCommander<Context> {
		pushClaim(
			due: string,
			inflight: string,
			now: number,
			lease: number,
			limit: number,
			scan: number,
			cap: number,
			...loads: (string | number)[]
		): Result<string[], Context>
		pushReap(due: string, inflight: string, now: number, limit: number): Result<number, Context>
		pushRequeue(
			due: string,
			inflight: string,
			member: string,
			dueAt: number,
		): Result<number, Context>
	}
}

function define(client: RedisClient) {
	if (typeof (client as { pushClaim?: unknown }).pushClaim === 'function') return client
	client.defineCommand('pushClaim', { numberOfKeys: 2, lua: claimScript })
	client.defineCommand('pushReap', { numberOfKeys: 2, lua: reapScript })
	client.defineCommand('pushRequeue', { numberOfKeys: 2, lua: requeueScript })
	return client
}

const client = define(redis)
const due = keys.pushDue()
const inflight = keys.pushInflight()

export const member = (communityId: number | string, deliveryId: string) =>
	`${communityId}:${deliveryId}`

export interface Claimed {
	member: string
	communityId: string
	deliveryId: string
}

/** Claims due deliveries, at most `cap` in flight per community counting `loads` (this worker's). */
export async function claimDue(
	now: number,
	leaseUntil: number,
	limit: number,
	cap: number,
	loads: Map<string, number>,
): Promise<Claimed[]> {
	const pairs: (string | number)[] = []
	for (const [communityId, load] of loads) pairs.push(communityId, load)
	const flat = await client.pushClaim(
		due,
		inflight,
		now,
		leaseUntil,
		limit,
		Math.max(1000, limit * 4),
		cap,
		...pairs,
	)
	const claimed: Claimed[] = []
	for (let i = 0; i < flat.length; i += 2) {
		const at = flat[i].indexOf(':')
		claimed.push({
			member: flat[i],
			communityId: flat[i].slice(0, at),
			deliveryId: flat[i].slice(at + 1),
		})
	}
	return claimed
}

export const reapExpired = (now: number, limit = 1000) => client.pushReap(due, inflight, now, limit)

export const requeue = (value: string, dueAt: number) =>
	client.pushRequeue(due, inflight, value, dueAt)

export async function release(members: string[]): Promise<void> {
	if (members.length > 0) await client.zrem(inflight, ...members)
}

export async function schedule(entries: { member: string; dueAt: number }[]): Promise<void> {
	if (entries.length === 0) return
	const args: (string | number)[] = []
	for (const entry of entries) args.push(entry.dueAt, entry.member)
	await client.zadd(due, ...args)
}

/** For each member, whether Redis holds it in either set. */
export async function scheduledFlags(members: string[]): Promise<boolean[]> {
	if (members.length === 0) return []
	const [inDue, inFlight] = await Promise.all([
		client.zmscore(due, ...members),
		client.zmscore(inflight, ...members),
	])
	return members.map((_, i) => inDue[i] !== null || inFlight[i] !== null)
}

export async function nextDueAt(): Promise<number | null> {
	const first = await client.zrange(due, 0, 0, 'WITHSCORES')
	return first.length === 2 ? Number(first[1]) : null
}

export async function queueDepth(): Promise<{ due: number; inflight: number }> {
	const [d, f] = await Promise.all([client.zcard(due), client.zcard(inflight)])
	return { due: d, inflight: f }
}
