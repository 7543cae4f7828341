// A worker process is SIGKILLed in the middle of a fan-out; after its lease runs out
// another worker resumes the job, and every follower holds the post exactly once — or,
// when the post was deleted meanwhile, no follower holds it.
import { afterAll, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { insertConnections } from '../../src/modules/connections/repo'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'
import { spawnPlaza } from '../support/process'
import { waitFor } from '../support/wait'

const FOLLOWERS = 60_000
let followerIds: number[] = []
const everyFollower: number[] = []

async function feedsHolding(postId: string): Promise<{ holding: number; exactlyOnce: boolean }> {
	let holding = 0
	let exactlyOnce = true
	for (let i = 0; i < followerIds.length; i += 5000) {
		const pipeline = redis.pipeline()
		for (const id of followerIds.slice(i, i + 5000)) pipeline.zrange(keys.connFeed(id), 0, -1)
		for (const [, members] of (await pipeline.exec()) ?? []) {
			const list = members as string[]
			if (list.includes(postId)) holding++
			if (list.length > 1 || (list.length === 1 && list[0] !== postId)) exactlyOnce = false
		}
	}
	return { holding, exactlyOnce }
}

/** An author with `count` one-way followers (made in bulk: through the API it would take minutes), each with a live connection feed. */
async function authorFollowedBy(name: string, count: number): Promise<TestUser> {
	const community = await newCommunity(name)
	const author = await newUser(community)
	const rows = await sql`
		insert into users (uuid, community_id, user_unique_id, name)
		select gen_random_uuid(), ${community.communityId}, 'f-' || g, 'Follower ' || g from generate_series(1, ${count}) g
		returning id::float8 as id`
	const ids = rows.map((r) => r.id as number)
	await insertConnections(
		sql,
		community.communityId,
		ids.map((id): [number, number] => [id, author.id]),
		'one_way',
		0,
	)
	for (let i = 0; i < ids.length; i += 5000) {
		const pipeline = redis.pipeline()
		for (const id of ids.slice(i, i + 5000)) pipeline.set(keys.connLive(id), '1', 'EX', 3600)
		await pipeline.exec()
	}
	followerIds = ids
	everyFollower.push(...ids)
	return author
}

/** Starts a worker that stops for good after its first checkpoint (a test hook), lets it write one batch of the post's fan-out, and kills it. */
async function postAndKillAfterFirstBatch(author: TestUser, text: string) {
	const first = await spawnPlaza('worker', {
		NODE_ENV: 'test',
		FANOUT_PAUSE_AFTER_CHECKPOINT: 'true',
	})
	const postId = await newPost(author, { text })
	const paused = JSON.parse(
		await first.waitForLine((line) => line.includes('fan-out paused after checkpoint'), 20_000),
	)
	await first.stop('SIGKILL')
	return { first, postId, paused }
}

async function jobsDone(postId: string, count: number): Promise<boolean> {
	const [row] =
		await sql`select count(*)::int as done from fanout_jobs where post_id = ${postId} and done_at is not null`
	return row.done === count
}

afterAll(async () => {
	for (let i = 0; i < everyFollower.length; i += 5000) {
		const pipeline = redis.pipeline()
		for (const id of everyFollower.slice(i, i + 5000))
			pipeline.del(keys.connFeed(id), keys.connLive(id))
		await pipeline.exec()
	}
})

test('a fan-out survives a worker killed mid-batch; every follower gets the post exactly once', async () => {
	const author = await authorFollowedBy('fanout-crash', FOLLOWERS)
	// The first worker is killed at a known point: one batch written, the rest to do.
	const { first, postId, paused } = await postAndKillAfterFirstBatch(author, 'to every follower')
	expect(paused.postId).toBe(postId)
	const [killed] =
		await sql`select cursor::float8 as cursor, attempts, done_at, lease_until > now() as leased from fanout_jobs where post_id = ${postId}`
	expect(killed.done_at).toBeNull()
	expect(killed.leased).toBe(true)
	expect(killed.cursor).toBe(paused.cursor)
	expect(killed.cursor).toBeLessThan(Math.max(...followerIds))
	// Exactly the followers up to the checkpoint hold the post.
	const upToCheckpoint = followerIds.filter((id) => id <= killed.cursor).length
	const partial = await feedsHolding(postId)
	expect(partial.holding).toBeGreaterThan(0)
	expect(partial.holding).toBe(upToCheckpoint)
	expect(partial.holding).toBeLessThan(FOLLOWERS)

	// The lease is 30 seconds; end it now instead of waiting.
	await sql`update fanout_jobs set lease_until = now() where post_id = ${postId}`
	const second = await spawnPlaza('worker', { NODE_ENV: 'test' })
	try {
		await waitFor(
			async () => {
				const [job] = await sql`select done_at from fanout_jobs where post_id = ${postId}`
				return job?.done_at ?? null
			},
			{ what: 'the job to finish', timeoutMs: 30_000, everyMs: 50 },
		)
	} finally {
		await second.stop()
	}
	const [done] = await sql`select attempts, last_error from fanout_jobs where post_id = ${postId}`
	expect(done.attempts).toBe(2)
	expect(done.last_error).toBeNull()
	expect(await feedsHolding(postId)).toEqual({ holding: FOLLOWERS, exactlyOnce: true })
	expect(first.stdout.join('\n')).not.toContain('"level":50')
}, 60_000)

test('a post deleted while its fan-out is half done ends in no follower feed, though the killed job resumes after the removal ran', async () => {
	const author = await authorFollowedBy('fanout-crash-delete', 12_000)
	const { postId } = await postAndKillAfterFirstBatch(author, 'soon deleted')
	expect((await feedsHolding(postId)).holding).toBeGreaterThan(0)

	// The removal job runs while the killed add job still holds its lease; the add job
	// resumes afterwards from its checkpoint, with followers the removal already passed.
	expect((await api('DELETE', `/feed/post/${postId}`, { token: author.token })).status).toBe(200)
	const second = await spawnPlaza('worker', { NODE_ENV: 'test' })
	try {
		await waitFor(async () => (await jobsDone(postId, 1)) || null, {
			what: 'the removal job to finish',
			timeoutMs: 30_000,
			everyMs: 50,
		})
		const [add] =
			await sql`select done_at from fanout_jobs where post_id = ${postId} and kind = 'add'`
		expect(add.done_at).toBeNull()
		await sql`update fanout_jobs set lease_until = now() where post_id = ${postId} and kind = 'add'`
		await waitFor(async () => (await jobsDone(postId, 2)) || null, {
			what: 'the resumed add job to finish',
			timeoutMs: 30_000,
			everyMs: 50,
		})
	} finally {
		await second.stop()
	}
	expect((await feedsHolding(postId)).holding).toBe(0)
}, 60_000)
