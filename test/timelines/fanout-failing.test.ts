// A fan-out job that keeps failing shows: jobs_failing{kind="fanout"} in /metrics and
// in /ready's body, job_failures_total counts each attempt, and after too many attempts
// the job is parked (still counted) instead of retrying forever. The failure is a real
// one from Redis: the follower's feed key holds a string, so ZADD answers WRONGTYPE.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('fanout-failing')
	await enableConnections(community)
})

afterAll(async () => {
	await drainFanOut()
})

const failingInReady = async () =>
	((await api('GET', '/ready')).body.jobs_failing?.fanout as number | undefined) ?? -1

async function metric(name: string): Promise<number> {
	const text = String((await api('GET', '/metrics')).body)
	const line = text.split('\n').find((l) => l.startsWith(`${name}{kind="fanout"}`))
	return line ? Number(line.split(' ').pop()) : 0
}

/** Makes the job due now, as if its back-off had passed, and lets the worker code run it. */
async function retryNow(postId: string) {
	await sql`update fanout_jobs set lease_until = null where post_id = ${postId} and done_at is null
		and lease_until <> 'infinity'`
	await drainFanOut()
}

async function jobOf(postId: string) {
	const [job] = await sql`
		select attempts, last_error, done_at, lease_until = 'infinity' as parked
		from fanout_jobs where post_id = ${postId}`
	return job as { attempts: number; last_error: string; done_at: Date | null; parked: boolean }
}

async function postTo(follower: TestUser) {
	const author = await newUser(community)
	await connect(follower, author)
	const reply = await api('POST', '/feed/post', { token: author.token, body: { text: 'hi' } })
	expect(reply.status).toBe(200)
	return reply.body.data.post._id as string
}

test('a failing fan-out job is counted in jobs_failing and /ready until it succeeds', async () => {
	const follower = await newUser(community)
	expect((await api('GET', '/feed/connection', { token: follower.token })).status).toBe(200)
	const failingBefore = await failingInReady()
	expect(failingBefore).toBeGreaterThanOrEqual(0)
	const failuresBefore = await metric('job_failures_total')

	await redis.set(keys.connFeed(follower.id), 'not a sorted set')
	const postId = await postTo(follower)
	await drainFanOut()
	await retryNow(postId)
	expect(await failingInReady()).toBe(failingBefore)
	await retryNow(postId)

	const job = await jobOf(postId)
	expect(job.attempts).toBe(3)
	expect(job.last_error).toContain('WRONGTYPE')
	expect(job.done_at).toBeNull()
	expect(await failingInReady()).toBe(failingBefore + 1)
	expect(await metric('jobs_failing')).toBe(failingBefore + 1)
	expect(await metric('job_failures_total')).toBe(failuresBefore + 3)

	// Positive control: once Redis takes the write, the job finishes and stops counting.
	await redis.del(keys.connFeed(follower.id))
	await retryNow(postId)
	expect((await jobOf(postId)).done_at).not.toBeNull()
	expect(await redis.zscore(keys.connFeed(follower.id), postId)).not.toBeNull()
	expect(await failingInReady()).toBe(failingBefore)
})

test('after too many attempts a job is parked, still counted, and no longer retried', async () => {
	const follower = await newUser(community)
	await api('GET', '/feed/connection', { token: follower.token })
	await redis.set(keys.connFeed(follower.id), 'not a sorted set')
	const failingBefore = await failingInReady()
	const postId = await postTo(follower)
	// Nine attempts already behind it: the next failure is the tenth and last.
	await sql`update fanout_jobs set attempts = 9, last_error = 'earlier' where post_id = ${postId}`
	await drainFanOut()
	const parked = await jobOf(postId)
	expect(parked).toMatchObject({ attempts: 10, done_at: null, parked: true })
	expect(await failingInReady()).toBe(failingBefore + 1)

	await redis.del(keys.connFeed(follower.id))
	await drainFanOut()
	expect((await jobOf(postId)).attempts).toBe(10)
	expect(await redis.exists(keys.connFeed(follower.id))).toBe(0)

	// What docs/scaling.md tells an operator to run once the cause is fixed.
	await sql`update fanout_jobs set lease_until = null, attempts = 0
		where done_at is null and lease_until = 'infinity' and post_id = ${postId}`
	await drainFanOut()
	expect((await jobOf(postId)).done_at).not.toBeNull()
	expect(await redis.zscore(keys.connFeed(follower.id), postId)).not.toBeNull()
	expect(await failingInReady()).toBe(failingBefore)
})
