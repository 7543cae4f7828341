// The Redis side of an outbox (webhook deliveries, pushes). Postgres rows are the
// truth; Redis only says when each open row is due. Two sets per outbox, one hash tag:
//   due      ZSET score = due time (ms)
//   inflight ZSET score = lease deadline (ms); a member is in exactly one of the two
// Members are `<group>:<id>`: the group (a webhook, a community) lets the claim cap
// what one group has in flight in a worker without a database read. Moves between the
// sets are single Lua scripts, so a member is never in neither while a worker holds
// it, nor in both.
import type { Result } from 'ioredis'
import { type RedisClient, redis } from '../redis'

declare module 'ioredis' {
	interface RedisCommander<Context> {
		outboxClaim(
			due: string,
			inflight: string,
			now: number,
			lease: number,
			limit: number,
			scan: number,
			cap: number,
			...loads: (string | number)[]
		): Result<string[], Context>
		outboxReap(due: string, inflight: string, now: number, limit: number): Result<number, Context>
		outboxRequeue(...args: (string | number)[]): Result<number, Context>
	}
}

// Claims up to ARGV[3] members due by ARGV[1], moving them to inflight with lease
// ARGV[2]. Per-group fairness without churn: at most ARGV[5] may be in flight per
// group in this worker (current loads follow as group, load pairs), so members of a
// saturated group are skipped and stay where they are, while members of other groups
// behind them (within the first ARGV[4] due) are taken.
// Returns a flat list member, due score, member, due score, ...
const claimScript = `
local limit, cap = tonumber(ARGV[3]), tonumber(ARGV[5])
local load = {}
for i = 6, #ARGV, 2 do load[ARGV[i]] = tonumber(ARGV[i + 1]) end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))
local out = {}
local taken = {}
for i = 1, #due, 2 do
	local group = string.match(due[i], '^([^:]*):')
	local current = load[group] or 0
	if current < cap then
		load[group] = current + 1
		taken[#taken + 1] = ARGV[2]
		taken[#taken + 1] = due[i]
		out[#out + 1] = due[i]
		out[#out + 1] = due[i + 1]
		if #out >= limit * 2 then break end
	end
end
if #out > 0 then
	local members = {}
	for i = 1, #out, 2 do members[#members + 1] = out[i] end
	redis.call('ZREM', KEYS[1], unpack(members))
	redis.call('ZADD', KEYS[2], unpack(taken))
end
return out`

// Returns members whose lease expired (their worker died) to the due set.
const reapScript = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(expired) do
	redis.call('ZREM', KEYS[2], member)
	redis.call('ZADD', KEYS[1], ARGV[1], member)
end
return #expired`

// Claimed members go back to the due set (retry or deferral) in one step: ARGV holds
// due time, member pairs.
const requeueScript = `
local moved = 0
for i = 1, #ARGV, 2 do
	redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1])
	moved = moved + redis.call('ZREM', KEYS[2], ARGV[i + 1])
end
return moved`

function define(client: RedisClient) {
	if (typeof (client as { outboxClaim?: unknown }).outboxClaim === 'function') return client
	client.defineCommand('outboxClaim', { numberOfKeys: 2, lua: claimScript })
	client.defineCommand('outboxReap', { numberOfKeys: 2, lua: reapScript })
	client.defineCommand('outboxRequeue', { numberOfKeys: 2, lua: requeueScript })
	return client
}

export const member = (group: number | string, id: string) => `${group}:${id}`

export function parseMember(value: string) {
	const at = value.indexOf(':')
	return { group: value.slice(0, at), id: value.slice(at + 1) }
}

export interface Claimed {
	member: string
	group: string
	id: string
	dueAt: number
}

export interface Entry {
	member: string
	dueAt: number
}

export type Schedule = ReturnType<typeof createSchedule>

/** The schedule of one outbox over its two keys (which must share a hash tag). */
export function createSchedule(due: string, inflight: string) {
	const client = define(redis)
	return {
		/** Claims due members, at most `cap` in flight per group counting `loads` (this worker's). */
		async claim(
			now: number,
			leaseUntil: number,
			limit: number,
			cap: number,
			loads: Map<string, number>,
		): Promise<Claimed[]> {
			const pairs: (string | number)[] = []
			for (const [group, load] of loads) pairs.push(group, load)
			const flat = await client.outboxClaim(
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
			for (let i = 0; i < flat.length; i += 2)
				claimed.push({ member: flat[i], ...parseMember(flat[i]), dueAt: Number(flat[i + 1]) })
			return claimed
		},

		reapExpired: (now: number, limit = 1000) => client.outboxReap(due, inflight, now, limit),

		async requeue(entries: Entry[]): Promise<void> {
			if (entries.length === 0) return
			await client.outboxRequeue(due, inflight, ...entries.flatMap((e) => [e.dueAt, e.member]))
		},

		/** Moves the lease deadline of members still in flight (XX: one the reaper took back stays taken). */
		async renewLeases(members: string[], leaseUntil: number): Promise<void> {
			if (members.length === 0) return
			await client.zadd(inflight, 'XX', ...members.flatMap((m) => [leaseUntil, m]))
		},

		async release(members: string[]): Promise<void> {
			if (members.length > 0) await client.zrem(inflight, ...members)
		},

		async schedule(entries: Entry[]): Promise<void> {
			if (entries.length === 0) return
			await client.zadd(due, ...entries.flatMap((e) => [e.dueAt, e.member]))
		},

		async unschedule(members: string[]): Promise<void> {
			if (members.length > 0) await client.zrem(due, ...members)
		},

		/** For each member, whether Redis holds it in either set. */
		async scheduledFlags(members: string[]): Promise<boolean[]> {
			if (members.length === 0) return []
			const [inDue, inFlight] = await Promise.all([
				client.zmscore(due, ...members),
				client.zmscore(inflight, ...members),
			])
			return members.map((_, i) => inDue[i] !== null || inFlight[i] !== null)
		},

		async nextDueAt(): Promise<number | null> {
			const first = await client.zrange(due, 0, 0, 'WITHSCORES')
			return first.length === 2 ? Number(first[1]) : null
		},

		async depth(): Promise<{ due: number; inflight: number }> {
			const [d, f] = await Promise.all([client.zcard(due), client.zcard(inflight)])
			return { due: d, inflight: f }
		},
	}
}
