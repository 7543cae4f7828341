// The fan-out worker claims jobs several at a time: the jobs of authors nobody follows
// end together (done, no Redis work), and a followed author's job claimed with them
// still reaches every follower. (An author nobody has EVER followed gets no job at all:
// post-jobs.test.ts.)
import { beforeAll, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestCommunity } from '../support/community'
import { connect, connectionPath, enableConnections } from '../support/connections'
import { newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('fanout-claims')
	await enableConnections(community)
	await drainFanOut()
})

test('jobs of unfollowed authors end together; a followed one claimed with them fans out', async () => {
	const [loner, author, follower] = await Promise.all([1, 2, 3].map(() => newUser(community)))
	await connect(follower, author, 'one_way')
	// Followed once, by nobody now: the loner's posts get jobs, which find no follower.
	await connect(follower, loner, 'one_way')
	const removed = await api('PATCH', connectionPath(follower), {
		token: loner.token,
		body: { action: 'reject' },
	})
	expect(removed.status).toBe(200)
	// A live connection feed: the worker writes only to feeds that are read.
	expect((await api('GET', '/feed/connection', { token: follower.token })).status).toBe(200)
	const lonely = await Promise.all([1, 2, 3].map((i) => newPost(loner, { text: `alone ${i}` })))
	const followed = await newPost(author, { text: 'for my follower' })
	const posts = [...lonely, followed]
	const pending = await sql`
		select count(*)::int as n from fanout_jobs where post_id = any(${posts}::text[]) and done_at is null`
	expect(pending[0]?.n).toBe(4)

	expect(await drainFanOut()).toBeGreaterThanOrEqual(4)
	const jobs = await sql`
		select post_id, done_at is not null as done, lease_until from fanout_jobs
		where post_id = any(${posts}::text[])`
	expect(jobs.map((j) => ({ done: j.done, lease: j.lease_until }))).toEqual(
		posts.map(() => ({ done: true, lease: null })),
	)
	expect(await redis.zscore(keys.connFeed(follower.id), followed)).not.toBeNull()
	for (const id of lonely) expect(await redis.zscore(keys.connFeed(follower.id), id)).toBeNull()
})
