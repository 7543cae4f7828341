// Kept pages of a viewer's own feeds (timelines/page-cache.ts with a basis): page 1 of
// the connection and personalised feeds is kept per viewer and served while the
// community's feed version and what the page was cut from stand. Every change a page
// shows moves one of them, so the very next read of every affected feed sees it, also
// with the pages warm.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { ids, newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser
let alice: TestUser
let bob: TestUser

beforeAll(async () => {
	community = await newCommunity('viewer-pages')
	await enableConnections(community)
	author = await newUser(community, { name: 'Author' })
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
	await connect(alice, author, 'one_way')
	await connect(bob, author, 'one_way')
	for (let i = 0; i < 3; i++) await newPost(author, { text: `post ${i}` })
	await drainFanOut()
})

afterAll(async () => {
	await drainFanOut()
})

const paths = { connection: '/feed/connection', personalised: '/feed/personalised' } as const
type Feed = keyof typeof paths

interface Post {
	_id: string
	text: string
	is_liked: boolean
	likes_count: number
}

async function page(feed: Feed, viewer: TestUser) {
	const reply = await api('GET', paths[feed], { token: viewer.token })
	expect(reply.status).toBe(200)
	const data = reply.body.data
	const posts: Post[] = data.feed ?? data.posts
	return { posts, users: data.users as Record<string, { name: string }> }
}
const warm = async (feed: Feed) => {
	await page(feed, alice)
	await page(feed, alice)
	await page(feed, bob)
}

/** Rewrites a post's cached text behind the engine's back (no version bump). */
async function rewriteCachedText(postId: string, text: string) {
	const key = keys.postCache(community.communityId, postId)
	const cached = (await redis.get(key)) as string
	await redis.set(key, cached.replace(/"text":"[^"]*"/, `"text":${JSON.stringify(text)}`))
}

for (const feed of ['connection', 'personalised'] as const) {
	describe(`kept ${feed} pages`, () => {
		test('a kept page is served while the version and its basis stand (the cache is real)', async () => {
			await warm(feed)
			const [first] = (await page(feed, alice)).posts
			await rewriteCachedText(first._id, 'rewritten behind its back')
			expect((await page(feed, alice)).posts[0].text).toBe(first.text)
			await redis.incr(keys.feedVersion(community.communityId))
			expect((await page(feed, alice)).posts[0].text).toBe('rewritten behind its back')
			// Put back the way a writer would: the cache dropped, the version moved.
			await redis.del(keys.postCache(community.communityId, first._id))
			await redis.incr(keys.feedVersion(community.communityId))
			expect((await page(feed, alice)).posts[0].text).toBe(first.text)
		})

		test('created, liked and deleted posts show in the very next read of every follower', async () => {
			await warm(feed)
			const created = await newPost(author, { text: `fresh for ${feed}` })
			await drainFanOut()
			expect(ids((await page(feed, alice)).posts)).toContain(created)
			expect(ids((await page(feed, bob)).posts)).toContain(created)

			await warm(feed)
			const like = await api('PUT', `/feed/post/${created}/like`, { token: alice.token })
			expect(like.status).toBe(200)
			const seen = (viewer: TestUser) =>
				page(feed, viewer).then((p) => p.posts.find((post) => post._id === created))
			expect(await seen(alice)).toMatchObject({ is_liked: true, likes_count: 1 })
			expect(await seen(bob)).toMatchObject({ is_liked: false, likes_count: 1 })

			await warm(feed)
			const deleted = await api('DELETE', `/feed/post/${created}`, { token: author.token })
			expect(deleted.status).toBe(200)
			expect(ids((await page(feed, alice)).posts)).not.toContain(created)
			expect(ids((await page(feed, bob)).posts)).not.toContain(created)
		})

		test('a post the worker fans out after the page was kept shows in the next read', async () => {
			await drainFanOut()
			// The connection feed live, so a personalised page stands on its version too.
			await page('connection', alice)
			await warm(feed)
			const fresh = await newPost(author, {
				text: `before its fan-out, ${feed}`,
				visibility: 'connections',
			})
			// Read (and kept) after the post moved the community's version, before its fan-out.
			expect(ids((await page(feed, alice)).posts)).not.toContain(fresh)
			await drainFanOut()
			expect(ids((await page(feed, alice)).posts)).toContain(fresh)
			await api('DELETE', `/feed/post/${fresh}`, { token: author.token })
			await drainFanOut()
		})

		test('a block shows at once for the blocker only; a renamed author for everyone', async () => {
			const mine = await newPost(author, { text: `by the author, ${feed}` })
			await drainFanOut()
			await warm(feed)
			expect(ids((await page(feed, bob)).posts)).toContain(mine)
			const blocked = await api('PUT', `/user/${bob.uuid}/block`, {
				token: bob.token,
				body: { uuid: author.uuid, shouldBlock: true },
			})
			expect(blocked.status).toBe(200)
			expect(ids((await page(feed, bob)).posts)).not.toContain(mine)
			expect(ids((await page(feed, alice)).posts)).toContain(mine)
			await api('PUT', `/user/${bob.uuid}/block`, {
				token: bob.token,
				body: { uuid: author.uuid, shouldBlock: false },
			})

			await warm(feed)
			const renamed = await api('POST', '/sdk/initiate', {
				apiKey: community.apiKey,
				body: { user_unique_id: author.uniqueId, user_name: `Author ${feed}` },
			})
			expect(renamed.status).toBe(200)
			expect((await page(feed, alice)).users[author.uuid].name).toBe(`Author ${feed}`)
		})
	})
}

describe('what a kept page stands in for', () => {
	test('turning user_connection off refuses the very next connection read, with the page kept', async () => {
		await warm('connection')
		await enableConnections(community, false)
		const refused = await api('GET', paths.connection, { token: alice.token })
		expect(refused.status).toBe(400)
		expect(refused.body.success).toBe(false)
		await enableConnections(community, true)
		await page('connection', alice)
	})

	test('a like and an unlike show in the very next read, the page kept', async () => {
		await warm('connection')
		const before = await page('connection', alice)
		const liked = before.posts[0] as Post
		const like = await api('PUT', `/feed/post/${liked._id}/like`, { token: alice.token })
		expect(like.status).toBe(200)
		const after = await page('connection', alice)
		expect(after.posts.find((p) => p._id === liked._id)).toMatchObject({ is_liked: true })
		const unlike = await api('PUT', `/feed/post/${liked._id}/like`, { token: alice.token })
		expect(unlike.status).toBe(200)
		expect((await page('connection', alice)).posts.find((p) => p._id === liked._id)).toMatchObject({
			is_liked: false,
		})
	})

	test('a save and an unsave show in the very next read of either feed, the pages kept', async () => {
		for (const feed of ['connection', 'personalised'] as const) {
			await warm(feed)
			const [saved] = (await page(feed, alice)).posts as (Post & { is_saved: boolean })[]
			const flagOf = async () =>
				((await page(feed, alice)).posts as (Post & { is_saved: boolean })[]).find(
					(p) => p._id === saved._id,
				)?.is_saved
			expect(await flagOf()).toBe(false)
			expect(
				(await api('PUT', `/feed/post/${saved._id}/save`, { token: alice.token })).status,
			).toBe(200)
			expect(await flagOf()).toBe(true)
			expect(
				(await api('PUT', `/feed/post/${saved._id}/save`, { token: alice.token })).status,
			).toBe(200)
			expect(await flagOf()).toBe(false)
		}
	})

	test('a recompute of the stored ranking shows in the very next personalised read', async () => {
		await warm('personalised')
		// Behind the engine's back: the stored ranking rewritten with a new recompute time.
		const { posts } = await page('personalised', alice)
		const last = posts.at(-1) as Post
		const meta = keys.persMeta(alice.id)
		const computedAt = Number(await redis.hget(meta, 'computed_at'))
		await redis.zadd(keys.persFeed(alice.id), 1e9, last._id)
		expect((await page('personalised', alice)).posts[0]?._id).toBe(posts[0]?._id)
		await redis.hset(meta, 'computed_at', computedAt + 1)
		expect((await page('personalised', alice)).posts[0]?._id).toBe(last._id)
		await api('GET', '/feed/personalised?should_reorder=true', { token: alice.token })
	})
})
