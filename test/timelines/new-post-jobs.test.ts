// A new post of an author nobody has ever followed writes no connection fan-out job
// (users.ever_followed, migrations/0065); once someone follows the author, every new
// post gets its job and reaches the follower. A follow committed while a post is being
// written never loses the post: the post waits for the follow's flag and writes its job,
// or the follow waits for the post.
import { beforeAll, expect, test } from 'bun:test'
import { insertConnections } from '../../src/modules/connections/repo'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, connectionPath, enableConnections } from '../support/connections'
import { createTopic, newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('new-post-jobs')
	await enableConnections(community)
	cm = await newUser(community, { role: 'cm' })
	await drainFanOut()
})

const jobsOf = async (postIds: string[]) =>
	(await sql`select post_id from fanout_jobs where post_id = any(${postIds}::text[])`).map(
		(j) => j.post_id as string,
	)

/** The follower's connection feed, read through the API (a first read makes it live). */
async function connectionFeed(viewer: TestUser): Promise<string[]> {
	const reply = await api('GET', '/feed/connection?page=1&page_size=50', { token: viewer.token })
	expect(reply.status).toBe(200)
	return reply.body.data.feed.map((p: { _id: string }) => p._id)
}

/** Settles within `ms`? (a request waiting on a lock does not) */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
	Promise.race([
		promise.then(() => true),
		new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
	])

test('no job for a never-followed author; after a follow every new post has one and reaches the follower', async () => {
	const [author, follower] = await Promise.all([1, 2].map(() => newUser(community)))
	const topic = await createTopic(cm, 'Jobs')
	// Both write paths: the plain posts' statement and the transaction (a post with a topic).
	const alone = [
		await newPost(author, { text: 'nobody follows me' }),
		await newPost(author, { text: 'on a topic', topic_ids: [topic] }),
	]
	expect(await jobsOf(alone)).toEqual([])

	await connectionFeed(follower)
	await connect(follower, author, 'one_way')
	// The follow merged the earlier posts into the live feed.
	expect((await connectionFeed(follower)).sort()).toEqual([...alone].sort())

	const followed = [
		await newPost(author, { text: 'now I have a follower' }),
		await newPost(author, { text: 'on a topic too', topic_ids: [topic] }),
	]
	expect((await jobsOf(followed)).sort()).toEqual([...followed].sort())
	await drainFanOut()
	expect((await connectionFeed(follower)).sort()).toEqual([...alone, ...followed].sort())

	// The mark stays when the follower leaves: the author's posts keep their jobs.
	const left = await api('PATCH', connectionPath(follower), {
		token: author.token,
		body: { action: 'reject' },
	})
	expect(left.status).toBe(200)
	const later = await newPost(author, { text: 'followed once' })
	expect(await jobsOf([later])).toEqual([later])
})

test('a follow committing while a post is written: the post waits for it, writes its job and fans out', async () => {
	const [author, follower] = await Promise.all([1, 2].map(() => newUser(community)))
	await connectionFeed(follower)
	let posting: Promise<string> | undefined
	await sql.begin(async (tx) => {
		// The follow's row, whose statement marks the author followed, not yet committed.
		await insertConnections(
			tx,
			community.communityId,
			[[follower.id, author.id]],
			'one_way',
			Date.now(),
		)
		posting = newPost(author, { text: 'written during the follow' })
		// Its snapshot predates the follow's commit; only the lock on the flag tells it.
		expect(await settlesWithin(posting, 300)).toBe(false)
	})
	const postId = await (posting as Promise<string>)
	expect(await jobsOf([postId])).toEqual([postId])
	await drainFanOut()
	expect(await connectionFeed(follower)).toEqual([postId])
})

test('a post holding its lock on a never-followed author: a follow waits for the post to commit', async () => {
	const [author, follower] = await Promise.all([1, 2].map(() => newUser(community)))
	let following: Promise<unknown> | undefined
	await sql.begin(async (tx) => {
		// The lock the posts' statement takes on a never-followed author, held as if that
		// statement were still running.
		await tx`
			select id from users
			where community_id = ${community.communityId} and id = ${author.id} and not ever_followed for share`
		following = connect(follower, author, 'one_way')
		expect(await settlesWithin(following, 300)).toBe(false)
	})
	await following
	const [row] = await sql`select ever_followed from users where id = ${author.id}`
	expect(row?.ever_followed).toBe(true)
})
