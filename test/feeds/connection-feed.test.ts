import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, connectionPath, enableConnections } from '../support/connections'
import { newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('connection-feed')
	await enableConnections(community)
	cm = await newUser(community, { role: 'cm' })
})

afterAll(async () => {
	await drainFanOut()
})

const feed = async (viewer: TestUser, query = '') => {
	const reply = await api('GET', `/feed/connection${query}`, { token: viewer.token })
	expect(reply.status).toBe(200)
	return reply.body.data as { feed: any[]; users: Record<string, any>; total_count: number }
}
const ids = async (viewer: TestUser) =>
	(await feed(viewer, '?page=1&page_size=50')).feed.map((p) => p._id)

describe('GET /feed/connection', () => {
	test('needs the user_connection setting (exact message)', async () => {
		const off = await newCommunity('connection-feed-off')
		const user = await newUser(off)
		const reply = await api('GET', '/feed/connection', { token: user.token })
		expect(reply.status).toBe(400)
		expect(reply.body).toEqual({
			success: false,
			error_message: 'Enable User Connection Setting to use this api',
		})
	})

	test("connections' public and connections-only posts, newest first, fanned out by the worker", async () => {
		const [author, friend, follower, stranger] = await Promise.all(
			[1, 2, 3, 4].map(() => newUser(community)),
		)
		await connect(author, friend, 'two_way')
		await connect(follower, author, 'one_way')
		for (const u of [author, friend, follower, stranger]) await feed(u)
		const now = Date.now()
		const older = await newPost(author, { text: 'older', created_at: now - 60_000 })
		const shared = await newPost(author, { text: 'for connections', visibility: 'connections' })
		const secret = await newPost(author, { text: 'private', visibility: 'private' })
		const own = await newPost(friend, { text: 'friend post' })
		// The request only enqueued the fan-out; the worker writes the feeds.
		expect(await redis.zscore(keys.connFeed(friend.id), shared)).toBeNull()
		expect(await drainFanOut()).toBeGreaterThanOrEqual(3)

		const ofFriend = await feed(friend)
		expect(ofFriend.feed.map((p) => p._id)).toEqual([shared, older])
		expect(ofFriend.feed[0]).toMatchObject({
			_id: shared,
			text: 'for connections',
			user_id: author.uuid,
			likes_count: 0,
			comments_count: 0,
		})
		expect(ofFriend.feed[0].created_at).toBeNumber()
		expect(Object.keys(ofFriend.users)).toEqual([author.uuid])
		expect(ofFriend.total_count).toBe(2)
		expect(await ids(follower)).toEqual([shared, older])
		// two_way: the author sees the friend's post; one_way: not the follower's.
		expect(await ids(author)).toEqual([own])
		expect(await ids(stranger)).toEqual([])
		expect((await ids(friend)).includes(secret)).toBe(false)

		const page2 = await feed(friend, '?page=2&page_size=1')
		expect(page2.feed.map((p) => p._id)).toEqual([older])
	})

	test('accepting merges recent posts; rejecting and blocking remove them', async () => {
		const [author, reader, other] = await Promise.all([1, 2, 3].map(() => newUser(community)))
		const p1 = await newPost(author, { text: 'before connecting' })
		const p2 = await newPost(author, { text: 'also before' })
		await drainFanOut()
		await feed(reader)
		await api('POST', connectionPath(author), {
			token: reader.token,
			body: { connection_type: 'two_way' },
		})
		expect(await ids(reader)).toEqual([])
		expect(
			(
				await api('PATCH', connectionPath(reader), {
					token: author.token,
					body: { action: 'accept' },
				})
			).status,
		).toBe(200)
		expect(await ids(reader)).toEqual([p2, p1])

		expect(
			(
				await api('PATCH', connectionPath(author), {
					token: reader.token,
					body: { action: 'reject' },
				})
			).status,
		).toBe(200)
		expect(await ids(reader)).toEqual([])
		expect(await redis.zcard(keys.connFeed(reader.id))).toBe(0)
		await newPost(author, { text: 'after rejection' })
		await drainFanOut()
		expect(await ids(reader)).toEqual([])

		await connect(other, author)
		expect(await ids(other)).toEqual(expect.arrayContaining([p1, p2]))
		await api('PUT', `/user/${other.uuid}/block`, {
			token: other.token,
			body: { uuid: author.uuid, shouldBlock: true },
		})
		expect(await ids(other)).toEqual([])
	})

	test('deleted posts and posts whose topics are all disabled leave the feed', async () => {
		const [author, reader] = await Promise.all([1, 2].map(() => newUser(community)))
		await connect(author, reader)
		await feed(reader)
		const topic = await api('POST', '/feed/topic', {
			token: cm.token,
			body: { names: [`t-${Date.now()}`] },
		})
		expect(topic.status).toBe(200)
		const topicId = topic.body.topics[0].id
		const tagged = await newPost(author, { topic_ids: [topicId] })
		const doomed = await newPost(author, { text: 'to delete' })
		const kept = await newPost(author, { text: 'kept' })
		await drainFanOut()
		expect(await ids(reader)).toEqual([kept, doomed, tagged])

		expect((await api('DELETE', `/feed/post/${doomed}`, { token: author.token })).status).toBe(200)
		expect(await ids(reader)).toEqual([kept, tagged])
		await drainFanOut()
		expect(await redis.zscore(keys.connFeed(reader.id), doomed)).toBeNull()

		expect(
			(await api('PUT', `/feed/topic/${topicId}`, { token: cm.token, body: { is_enabled: false } }))
				.status,
		).toBe(200)
		expect(await ids(reader)).toEqual([kept])
	})

	test('a page stays full when hidden posts are dropped from it', async () => {
		const [author, reader] = await Promise.all([1, 2].map(() => newUser(community)))
		await connect(author, reader)
		await feed(reader)
		const topic = await api('POST', '/feed/topic', {
			token: cm.token,
			body: { names: [`fill-${Date.now()}`] },
		})
		const topicId = topic.body.topics[0].id
		const plain: string[] = []
		for (let i = 0; i < 3; i++) plain.push(await newPost(author, { text: `plain ${i}` }))
		for (let i = 0; i < 2; i++) await newPost(author, { topic_ids: [topicId] })
		await drainFanOut()
		expect(
			(await api('PUT', `/feed/topic/${topicId}`, { token: cm.token, body: { is_enabled: false } }))
				.status,
		).toBe(200)
		// The two newest posts are hidden now: page 1 is filled from further down.
		const page1 = await feed(reader, '?page=1&page_size=2')
		expect(page1.feed.map((p) => p._id)).toEqual([plain[2], plain[1]])
		expect(Object.keys(page1.users)).toEqual([author.uuid])
		expect((await feed(reader, '?page=2&page_size=2')).feed.map((p) => p._id)).toEqual([plain[0]])
	})

	test('users inactive for 7 days get no fan-out and are rebuilt from Postgres on their next read', async () => {
		const [author, sleeper] = await Promise.all([1, 2].map(() => newUser(community)))
		await connect(author, sleeper)
		await feed(sleeper)
		// The live marker expiring is what 7 days without a read looks like.
		await redis.del(keys.connLive(sleeper.id))
		const fresh = await newPost(author, { text: 'while away' })
		await drainFanOut()
		expect(await redis.zscore(keys.connFeed(sleeper.id), fresh)).toBeNull()
		expect(await ids(sleeper)).toEqual([fresh])
		expect(await redis.ttl(keys.connLive(sleeper.id))).toBeGreaterThan(6 * 86_400)
	})

	test('a feed never read is built from Postgres on the first read', async () => {
		const [author, newcomer] = await Promise.all([1, 2].map(() => newUser(community)))
		await connect(author, newcomer)
		const first = await newPost(author)
		const second = await newPost(author, { visibility: 'connections' })
		await newPost(author, { visibility: 'private' })
		await drainFanOut()
		expect(await ids(newcomer)).toEqual([second, first])
	})
})
