// A viewer's flags (is_liked, is_saved) on feed pages (timelines/viewer-state.ts): a small
// flags set is kept whole in the process under its version, so a page computed for
// someone else needs no flags command; a larger one is asked per page. Either way the
// very next read after a like or a save shows it, also when Redis lost the viewer's keys.
import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { feed, newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser

beforeAll(async () => {
	community = await newCommunity('viewer-flags')
	author = await newUser(community, { name: 'Author' })
	for (let i = 0; i < 3; i++) await newPost(author, { text: `post ${i}` })
})

interface Post {
	_id: string
	is_liked: boolean
	is_saved: boolean
}

const page = async (viewer: TestUser) => (await feed(viewer)).posts as Post[]
const flagsOf = async (viewer: TestUser, postId: string) =>
	(await page(viewer)).find((p) => p._id === postId)
const like = async (viewer: TestUser, postId: string) =>
	expect(
		(
			await api('PUT', `/feed/post/${postId}/like`, {
				token: viewer.token,
				body: { value: true },
			})
		).status,
	).toBe(200)
/** A liked member written behind the engine's back: no new flags version. */
const sneakLike = (viewer: TestUser, postId: string) =>
	redis.sadd(keys.viewerFlags(viewer.id), `l${postId}`)

describe('whole flags', () => {
	test('are served while their version stands, even on a page computed for another viewer', async () => {
		const [alice, bob] = await Promise.all([newUser(community), newUser(community)])
		const [top] = await page(alice)
		await page(alice)
		// A new page, computed by bob: alice has no flags remembered by it.
		await redis.incr(keys.feedVersion(community.communityId))
		await page(bob)
		await sneakLike(alice, (top as Post)._id)
		expect(await flagsOf(alice, (top as Post)._id)).toMatchObject({ is_liked: false })
		// A new version (what every write of the set leaves) reads the whole set again.
		await redis.set(keys.viewerFlagsVersion(alice.id), 'moved')
		expect(await flagsOf(alice, (top as Post)._id)).toMatchObject({ is_liked: true })
	})

	test('a like and a save show in the very next read, also on a page another reader computes', async () => {
		const [alice, bob] = await Promise.all([newUser(community), newUser(community)])
		await page(alice)
		const created = await newPost(author, { text: 'liked at once' })
		await like(alice, created)
		expect((await api('PUT', `/feed/post/${created}/save`, { token: alice.token })).status).toBe(
			200,
		)
		// The post moved the feed version: bob computes the page, alice's read waits for it.
		const [, alicePage] = await Promise.all([page(bob), page(alice)])
		expect(alicePage.find((p) => p._id === created)).toMatchObject({
			is_liked: true,
			is_saved: true,
		})
	})

	test("a viewer's flags lost from Redis come back from Postgres", async () => {
		const alice = await newUser(community)
		const [top] = await page(alice)
		await page(alice)
		await like(alice, (top as Post)._id)
		// What a flushed Redis or a rebuild leaves: neither the set nor its version.
		await redis.del(keys.viewerFlags(alice.id), keys.viewerFlagsVersion(alice.id))
		expect(await flagsOf(alice, (top as Post)._id)).toMatchObject({ is_liked: true })
		expect(await flagsOf(alice, (top as Post)._id)).toMatchObject({ is_liked: true })
	})
})

describe('a larger flags set', () => {
	test('is asked per page, and a like still shows in the very next read', async () => {
		const heavy = await newUser(community)
		await page(heavy)
		// More members than are kept whole (all of posts that are not on the page).
		const others = Array.from({ length: 80 }, (_, i) => `lnot-a-post-${i}`)
		await redis.sadd(keys.viewerFlags(heavy.id), ...others)
		await redis.set(keys.viewerFlagsVersion(heavy.id), 'grown')
		const [top] = await page(heavy)
		expect(top).toMatchObject({ is_liked: false })
		await like(heavy, (top as Post)._id)
		expect(await flagsOf(heavy, (top as Post)._id)).toMatchObject({ is_liked: true })
		// Written behind the engine's back, it shows too: the set is asked, not kept whole.
		const [, second] = await page(heavy)
		await redis.incr(keys.feedVersion(community.communityId))
		await page(author)
		await sneakLike(heavy, (second as Post)._id)
		expect(await flagsOf(heavy, (second as Post)._id)).toMatchObject({ is_liked: true })
	})
})
