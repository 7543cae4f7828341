import { describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { drainFanOut } from '../../src/timelines/fanout'
import { drainRecomputeQueue } from '../../src/timelines/recompute'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { newPost } from '../support/content'
import { api } from '../support/http'

// Each test gets its own community: the personalised feed ranks the whole community.
async function setup(): Promise<{ community: TestCommunity; viewer: TestUser; cm: TestUser }> {
	const community = await newCommunity('personalised')
	await enableConnections(community)
	return {
		community,
		viewer: await newUser(community),
		cm: await newUser(community, { role: 'cm' }),
	}
}

async function read(viewer: TestUser, query = '') {
	const reply = await api('GET', `/feed/personalised${query}`, { token: viewer.token })
	expect(reply.status).toBe(200)
	expect(reply.body.success).toBe(true)
	return reply.body.data as { posts: any[]; users: Record<string, any>; total_count: number }
}
const order = async (viewer: TestUser, query = '') =>
	(await read(viewer, query)).posts.map((p) => p._id)

const hoursAgo = (h: number) => Date.now() - h * 3_600_000

describe('GET /feed/personalised', () => {
	test('posts carry user, the users map and total_count; defaults page 1 / 20', async () => {
		const { community, viewer } = await setup()
		const author = await newUser(community, { name: 'Author' })
		const ids: string[] = []
		for (let i = 0; i < 22; i++) ids.push(await newPost(author, { created_at: hoursAgo(22 - i) }))
		const data = await read(viewer)
		expect(data.total_count).toBe(22)
		expect(data.posts).toHaveLength(20)
		expect(data.posts[0]).toMatchObject({
			_id: ids[21],
			user_id: author.uuid,
			is_liked: false,
			is_saved: false,
		})
		expect(data.posts[0].user).toMatchObject({ uuid: author.uuid, name: 'Author' })
		expect(data.posts[0].menu_items).toBeArray()
		expect(Object.keys(data.users)).toEqual([author.uuid])
		expect(await order(viewer, '?page=2&page_size=20')).toEqual([ids[1], ids[0]])
	})

	test('inclusion and exclusion: visibility, connections, blocks, deleted posts, disabled topics', async () => {
		const { community, viewer, cm } = await setup()
		const [friend, stranger, blocker, blocked] = await Promise.all(
			[1, 2, 3, 4].map(() => newUser(community)),
		)
		await connect(viewer, friend)
		const topic = (
			await api('POST', '/feed/topic', { token: cm.token, body: { names: ['Soon off'] } })
		).body.topics[0].id
		const pub = await newPost(stranger)
		const friendsOnly = await newPost(friend, { visibility: 'connections' })
		const strangersOnly = await newPost(stranger, { visibility: 'connections' })
		const privatePost = await newPost(stranger, { visibility: 'private' })
		const fromBlocker = await newPost(blocker)
		const fromBlocked = await newPost(blocked)
		const deleted = await newPost(stranger)
		const inTopic = await newPost(stranger, { topic_ids: [topic] })
		await api('PUT', `/user/${blocker.uuid}/block`, {
			token: blocker.token,
			body: { uuid: viewer.uuid, shouldBlock: true },
		})
		await api('PUT', `/user/${viewer.uuid}/block`, {
			token: viewer.token,
			body: { uuid: blocked.uuid, shouldBlock: true },
		})
		await api('DELETE', `/feed/post/${deleted}`, { token: stranger.token })
		await api('PUT', `/feed/topic/${topic}`, { token: cm.token, body: { is_enabled: false } })
		await drainFanOut()
		const seen = await order(viewer, '?should_reorder=true')
		expect(seen.sort()).toEqual([pub, friendsOnly].sort())
		for (const hidden of [strangersOnly, privatePost, fromBlocker, fromBlocked, deleted, inTopic])
			expect(seen).not.toContain(hidden)
	})

	test('a page stays full when ranked posts are hidden after the recompute', async () => {
		const { community, viewer, cm } = await setup()
		const author = await newUser(community)
		const topic = (await api('POST', '/feed/topic', { token: cm.token, body: { names: ['Fill'] } }))
			.body.topics[0].id
		const plain: string[] = []
		for (let i = 0; i < 3; i++) plain.push(await newPost(author, { text: `plain ${i}` }))
		const tagged = [
			await newPost(author, { topic_ids: [topic] }),
			await newPost(author, { topic_ids: [topic] }),
		]
		expect(
			(await read(viewer, '?should_reorder=true&page_size=2')).posts.map((p) => p._id).sort(),
		).toEqual(tagged.sort())
		await api('PUT', `/feed/topic/${topic}`, { token: cm.token, body: { is_enabled: false } })
		const page1 = await read(viewer, '?page=1&page_size=2')
		expect(page1.posts).toHaveLength(2)
		const page2 = await read(viewer, '?page=2&page_size=2')
		expect([...page1.posts, ...page2.posts].map((p) => p._id).sort()).toEqual([...plain].sort())
		expect(page1.posts[0].user).toMatchObject({ uuid: author.uuid })
	})

	test('fresh posts appear without a recompute; should_reorder re-ranks after engagement', async () => {
		const { community, viewer } = await setup()
		const author = await newUser(community)
		const older = await newPost(author, { text: 'older', created_at: hoursAgo(3) })
		const newer = await newPost(author, { text: 'newer', created_at: hoursAgo(1) })
		expect(await order(viewer)).toEqual([newer, older])
		const computedAt = Number(await redis.hget(keys.persMeta(viewer.id), 'computed_at'))

		const fresh = await newPost(author, { text: 'fresh' })
		expect(await order(viewer)).toEqual([fresh, newer, older])
		expect(Number(await redis.hget(keys.persMeta(viewer.id), 'computed_at'))).toBe(computedAt)

		const fans = await Promise.all([1, 2, 3, 4, 5, 6].map(() => newUser(community)))
		for (const fan of fans)
			expect((await api('PUT', `/feed/post/${older}/like`, { token: fan.token })).status).toBe(200)
		// Stored scores are kept until a recompute...
		expect(await order(viewer)).toEqual([fresh, newer, older])
		// ...which should_reorder runs before reading.
		const reordered = await order(viewer, '?should_reorder=true')
		expect(reordered.indexOf(older)).toBeLessThan(reordered.indexOf(newer))
		expect(Number(await redis.hget(keys.persMeta(viewer.id), 'computed_at'))).toBeGreaterThan(
			computedAt,
		)
		// A deletion shows at once, without a recompute.
		await api('DELETE', `/feed/post/${fresh}`, { token: author.token })
		expect(await order(viewer)).not.toContain(fresh)
	})

	test('should_recompute queues a background recompute and answers at once', async () => {
		const { community, viewer } = await setup()
		const author = await newUser(community)
		await newPost(author)
		await read(viewer)
		const before = Number(await redis.hget(keys.persMeta(viewer.id), 'computed_at'))
		await Bun.sleep(5)
		const data = await read(viewer, '?should_recompute=true')
		expect(data.posts).toHaveLength(1)
		expect(
			await redis.sismember(keys.recomputeQueue(), `${community.communityId}:${viewer.id}`),
		).toBe(1)
		await drainRecomputeQueue()
		expect(Number(await redis.hget(keys.persMeta(viewer.id), 'computed_at'))).toBeGreaterThan(
			before,
		)
	})

	test('connections and author affinity lift posts', async () => {
		const { community, viewer } = await setup()
		const [friend, liked, other] = await Promise.all([1, 2, 3].map(() => newUser(community)))
		await connect(viewer, friend)
		const likedOld = await newPost(liked, { created_at: hoursAgo(10) })
		await api('PUT', `/feed/post/${likedOld}/like`, { token: viewer.token })
		const a = await newPost(other, { created_at: hoursAgo(2) })
		const b = await newPost(friend, { created_at: hoursAgo(2.5) })
		const c = await newPost(liked, { created_at: hoursAgo(2.5) })
		const ranked = await order(viewer, '?should_reorder=true')
		expect(ranked.indexOf(b)).toBeLessThan(ranked.indexOf(a))
		expect(ranked.indexOf(c)).toBeLessThan(ranked.indexOf(a))
	})

	test('topics filter: comma-separated names, case-insensitive; unknown names give an empty page', async () => {
		const { community, viewer, cm } = await setup()
		const author = await newUser(community)
		const created = await api('POST', '/feed/topic', {
			token: cm.token,
			body: { names: ['Cooking', 'Travel', 'Music'] },
		})
		const [cooking, travel, music] = created.body.topics.map((t: any) => t.id)
		const p1 = await newPost(author, { topic_ids: [cooking] })
		const p2 = await newPost(author, { topic_ids: [travel] })
		await newPost(author, { topic_ids: [music] })
		await newPost(author)
		expect(await order(viewer, '?topics=cooking')).toEqual([p1])
		const both = await read(viewer, '?topics=Cooking,%20TRAVEL')
		expect(both.posts.map((p) => p._id)).toEqual([p2, p1])
		expect(both.total_count).toBe(2)
		const none = await read(viewer, '?topics=Nope')
		expect(none).toMatchObject({ posts: [], total_count: 0 })
		expect((await read(viewer)).total_count).toBe(4)
	})

	test('bad query values are 400', async () => {
		const { viewer } = await setup()
		for (const q of ['?page=0', '?page_size=0', '?page_size=2.5', '?should_reorder=maybe']) {
			const reply = await api('GET', `/feed/personalised${q}`, { token: viewer.token })
			expect(reply.status).toBe(400)
			expect(reply.body.success).toBe(false)
		}
	})
})

describe('GET /feed/personalised under sustained writing', () => {
	test('after 2,000 new posts a read folds them in, and a post created, liked, deleted or blocked shows in the very next read', async () => {
		const { community, viewer } = await setup()
		const [busy, author, other] = await Promise.all([1, 2, 3].map(() => newUser(community)))
		await newPost(author, { created_at: hoursAgo(2) })
		await read(viewer) // the recompute: the stored ranking starts here
		const posted: string[] = []
		for (let batch = 0; batch < 100; batch++) {
			posted.push(...(await Promise.all(Array.from({ length: 20 }, () => newPost(busy)))))
			// Reads now and then, as people do: each folds what was placed since the last one.
			if (batch % 25 === 24) expect((await order(viewer)).length).toBe(20)
		}
		const newest = posted.slice(-20)
		expect(new Set(await order(viewer))).toEqual(new Set(newest))
		// The stored ranking reaches the newest placement: the next read starts past it.
		const [last] = await redis.xrevrange(
			keys.placements(community.communityId),
			'+',
			'-',
			'COUNT',
			1,
		)
		expect(await redis.hget(keys.persMeta(viewer.id), 'stream_id')).toBe(last?.[0] as string)

		const created = await newPost(author)
		expect((await order(viewer))[0]).toBe(created)
		const liked = await api('PUT', `/feed/post/${created}/like`, { token: viewer.token })
		expect(liked.status).toBe(200)
		expect((await read(viewer)).posts[0]).toMatchObject({ _id: created, is_liked: true })
		expect((await api('DELETE', `/feed/post/${created}`, { token: author.token })).status).toBe(200)
		expect(await order(viewer)).not.toContain(created)

		const theirs = await newPost(other)
		expect((await order(viewer))[0]).toBe(theirs)
		const blocked = await api('PUT', `/user/${viewer.uuid}/block`, {
			token: viewer.token,
			body: { uuid: other.uuid, shouldBlock: true },
		})
		expect(blocked.status).toBe(200)
		expect(await order(viewer)).not.toContain(theirs)
		expect(await order(viewer)).toHaveLength(20)
	}, 120_000)
})
