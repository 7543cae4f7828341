// A worker process is SIGKILLed in the middle of a fan-out; after its lease runs out
// another worker resumes the job, and every follower holds the post exactly once.
import { afterAll, expect, test } from 'bun:test'
import { sql } from '../../src/lib/db'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { newCommunity, newUser } from '../support/community'
import { newPost } from '../support/content'
import { spawnPlaza } from '../support/process'
import { waitFor } from '../support/wait'

const FOLLOWERS = 60_000
let followerIds: number[] = []

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

afterAll(async () => {
	for (let i = 0; i < followerIds.length; i += 5000) {
		const pipeline = redis.pipeline()
		for (const id of followerIds.slice(i, i + 5000))
			pipeline.del(keys.connFeed(id), keys.connLive(id))
		await pipeline.exec()
	}
})

test('a fan-out survives a worker killed mid-batch; every follower gets the post exactly once', async () => {
	const community = await newCommunity('fanout-crash')
	const author = await newUser(community)
	// Followers made in bulk (60,000 users through the API would take minutes).
	const rows = await sql`
		insert into users (uuid, community_id, user_unique_id, name)
		select gen_random_uuid(), ${community.communityId}, 'f-' || g, 'Follower ' || g from generate_series(1, ${FOLLOWERS}) g
		returning id`
	followerIds = rows.map((r) => r.id as number)
	await sql`
		insert into connections (community_id, user_id, connection_id, connection_type, created_at)
		select ${community.communityId}, id, ${author.id}, 'one_way', 0 from unnest(${followerIds}::int[]) id`
	for (let i = 0; i < followerIds.length; i += 5000) {
		const pipeline = redis.pipeline()
		for (const id of followerIds.slice(i, i + 5000))
			pipeline.set(keys.connLive(id), '1', 'EX', 3600)
		await pipeline.exec()
	}

	// The first worker stops for good after its first checkpoint (a test hook), so it is
	// killed at a known point: one batch written, the rest of the job still to do.
	const first = await spawnPlaza('worker', {
		NODE_ENV: 'test',
		FANOUT_PAUSE_AFTER_CHECKPOINT: 'true',
	})
	const postId = await newPost(author, { text: 'to every follower' })
	const paused = JSON.parse(
		await first.waitForLine((line) => line.includes('fan-out paused after checkpoint'), 20_000),
	)
	await first.stop('SIGKILL')
	expect(paused.postId).toBe(postId)
	const [killed] =
		await sql`select cursor, attempts, done_at, lease_until > now() as leased from fanout_jobs where post_id = ${postId}`
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
