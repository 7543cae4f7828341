// The Redis side of webhook delivery. Postgres rows are the truth; Redis only says
// when each pending delivery is due. Members are `<webhookId>:<deliveryId>` so a
// worker knows the endpoint (for per-endpoint limits) without a database read.
//   due      ZSET score = due time (ms)
//   inflight ZSET score = lease deadline (ms); a member is in exactly one of the two
// Moves between the sets are single Lua scripts, so a member is never in neither
// while a worker holds it, nor in both.
import type { Result } from 'ioredis'
import { keys } from '../lib/keys'
import { type RedisClient, redis } from '../lib/redis'

declare module 'ioredis' {
	interface RedisCommander<Context> {
		webhookClaim(
			due: string,
			inflight: string,
			now: number,
			lease: number,
			limit: number,
			scan: number,
			cap: number,
			...loads: (string | number)[]
		): Result<string[], Context>
		webhookReap(due: string, inflight: string, now: number, limit: number): Result<number, Context>
		webhookRequeue(
			due: string,
			inflight: string,
			member: string,
			dueAt: number,
		): Result<number, Context>
	}
}

// Claims up to ARGV[3] members due by ARGV[1], moving them to inflight with lease
// ARGV[2]. Per-endpoint fairness without churn: at most ARGV[5] attempts per webhook
// may be in flight in this worker (current loads follow as webhook, load pairs), so
// members of a saturated webhook are skipped and stay where they are, while members
// of other webhooks behind them (within the first ARGV[4] due) are taken.
// Returns a flat list member, due score, member, due score, ...
export const claimScript = `
local limit, cap = tonumber(ARGV[3]), tonumber(ARGV[5])
local load = {}
for i = 6, #ARGV, 2 do load[ARGV[i]] = tonumber(ARGV[i + 1]) end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))
local out = {}
for i = 1, #due, 2 do
	local webhook = string.match(due[i], '^([^:]*):')
	local current = load[webhook] or 0
	if current < cap then
		load[webhook] = current + 1
		redis.call('ZREM', KEYS[1], due[i])
		redis.call('ZADD', KEYS[2], ARGV[2], due[i])
		out[#out + 1] = due[i]
		out[#out + 1] = due[i + 1]
		if #out >= limit * 2 then break end
	end
end
return out`

// Returns members whose lease expired (their worker died) to the due set.
export const reapScript = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(expired) do
	redis.call('ZREM', KEYS[2], member)
	redis.call('ZADD', KEYS[1], ARGV[1], member)
end
return #expired`

// A claimed member goes back to the due set (retry or deferral) in one step.
export const requeueScript = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return redis.call('ZREM', KEYS[2], ARGV[1])`

function define(client: RedisClient) {
	if (typeof (client as { webhookClaim?: unknown }).webhookClaim === 'function') return client
	client.defineCommand('webhookClaim', { numberOfKeys: 2, lua: claimScript })
	client.defineCommand('webhookReap', { numberOfKeys: 2, lua: reapScript })
	client.defineCommand('webhookRequeue', { numberOfKeys: 2, lua: requeueScript })
	return client
}

const client = define(redis)
const due = keys.webhookDue()
const inflight = keys.webhookInflight()

export const member = (webhookId: string, deliveryId: string) => `${webhookId}:${deliveryId}`

export function parseMember(value: string) {
	const at = value.indexOf(':')
	return { webhookId: value.slice(0, at), deliveryId: value.slice(at + 1) }
}

export interface Claimed {
	member: string
	webhookId: string
	deliveryId: string
	dueAt: number
}

/** Claims due members, at most `cap` in flight per webhook counting `loads` (this worker's). */
export async function claimDue(
	now: number,
	leaseUntil: number,
	limit: number,
	cap: number,
	loads: Map<string, number>,
): Promise<Claimed[]> {
	const pairs: (string | number)[] = []
	for (const [webhookId, load] of loads) pairs.push(webhookId, load)
	const flat = await client.webhookClaim(
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
		claimed.push({ member: flat[i], ...parseMember(flat[i]), dueAt: Number(flat[i + 1]) })
	}
	return claimed
}

export const reapExpired = (now: number, limit = 1000) =>
	client.webhookReap(due, inflight, now, limit)

export const requeue = (memberValue: string, dueAt: number) =>
	client.webhookRequeue(due, inflight, memberValue, dueAt)

/** Moves the lease deadline of members still in flight (XX: one the reaper took back stays taken). */
export async function renewLeases(members: string[], leaseUntil: number): Promise<void> {
	if (members.length === 0) return
	const args: (string | number)[] = []
	for (const m of members) args.push(leaseUntil, m)
	await client.zadd(inflight, 'XX', ...args)
}

export async function release(members: string[]): Promise<void> {
	if (members.length > 0) await client.zrem(inflight, ...members)
}

export async function schedule(entries: { member: string; dueAt: number }[]): Promise<void> {
	if (entries.length === 0) return
	const args: (string | number)[] = []
	for (const entry of entries) args.push(entry.dueAt, entry.member)
	await client.zadd(due, ...args)
}

export async function unschedule(members: string[]): Promise<void> {
	if (members.length > 0) await client.zrem(due, ...members)
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
