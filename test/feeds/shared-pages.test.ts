// Universal feed pages shared by every viewer without blocks (timelines/page-cache.ts):
// a kept page is served while the community's feed version stands, and every write a
// page shows moves the version, so the very next read of every viewer sees it — also
// with the page warm.
import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createTopic, feed, ids, newPost, setTopicEnabled } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let author: TestUser
let alice: TestUser
let bob: TestUser
let topic: string

beforeAll(async () => {
	community = await newCommunity('shared-pages')
	cm = await newUser(community, { role: 'cm' })
	author = await newUser(community, { name: 'Author' })
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
	topic = await createTopic(cm, 'Shared')
	for (let i = 0; i < 3; i++) await newPost(author, { text: `post ${i}`, topic_ids: [topic] })
})

/** Shared pages computed so far: feed_shared_pages_total from GET /metrics (timelines/metrics.ts). */
async function sharedPagesComputed(): Promise<number> {
	const text = String((await api('GET', '/metrics')).body)
	return Number(/feed_shared_pages_total\{outcome="computed"\} (\d+)/.exec(text)?.[1] ?? 0)
}

const page = async (viewer: TestUser, query = '') => (await feed(viewer, query)).posts as any[]
const warm = async (query = '') => {
	await page(alice, query)
	await page(bob, query)
}

describe('shared universal pages', () => {
	test('a kept page is served while the feed version stands (the cache is real)', async () => {
		await warm()
		const [first] = await page(alice)
		// Taken out of Redis behind the engine's back (no version bump): the kept page still shows it.
		await redis.zrem(keys.universalFeed(community.communityId), first._id)
		expect(ids(await page(bob))[0]).toBe(first._id)
		await redis.incr(keys.feedVersion(community.communityId))
		expect(ids(await page(bob))).not.toContain(first._id)
		await redis.zadd(keys.universalFeed(community.communityId), first.created_at, first._id)
		await redis.incr(keys.feedVersion(community.communityId))
		expect(ids(await page(bob))[0]).toBe(first._id)
	})

	test('one kept page, each viewer their own flags and menus (renderings are per variant)', async () => {
		await warm()
		const version = await redis.get(keys.feedVersion(community.communityId))
		const [first] = await page(alice)
		// A save moves no feed version: the kept page stays, only the saver's bytes change.
		const saved = await api('PUT', `/feed/post/${first._id}/save`, { token: alice.token })
		expect(saved.status).toBe(200)
		expect((await page(alice))[0]).toMatchObject({ _id: first._id, is_saved: true })
		expect((await page(bob))[0]).toMatchObject({ _id: first._id, is_saved: false })
		expect((await page(alice))[0]).toMatchObject({ _id: first._id, is_saved: true })

		const menu = async (viewer: TestUser) =>
			((await page(viewer))[0].menu_items as { id: number }[]).map((item) => item.id)
		const [own, managed, member] = [await menu(author), await menu(cm), await menu(bob)]
		expect(member).toEqual([4])
		expect(own).toEqual([1, 2, 5])
		expect(managed).not.toEqual(member)
		expect(await menu(alice)).toEqual(member)
		expect(await redis.get(keys.feedVersion(community.communityId))).toBe(version)

		expect((await api('PUT', `/feed/post/${first._id}/save`, { token: alice.token })).status).toBe(
			200,
		)
		expect((await page(alice))[0]).toMatchObject({ _id: first._id, is_saved: false })
	})

	test("a kept page's bytes follow the viewer: own posts' and a CM's menus, each viewer's flags", async () => {
		await warm()
		const menus = async (viewer: TestUser) =>
			(await page(viewer)).map((p) => JSON.stringify(p.menu_items)).join('|')
		const [memberMenus, authorMenus, cmMenus] = [
			await menus(alice),
			await menus(author),
			await menus(cm),
		]
		expect(authorMenus).not.toBe(memberMenus)
		expect(cmMenus).not.toBe(memberMenus)
		expect(await menus(bob)).toBe(memberMenus)
		expect(await menus(author)).toBe(authorMenus)
	})

	test('created, liked, edited and deleted posts show in the very next read of every viewer', async () => {
		await warm()
		const created = await newPost(author, { text: 'fresh', topic_ids: [topic] })
		expect(ids(await page(alice))[0]).toBe(created)
		expect(ids(await page(bob, `topic_ids=${topic}`))[0]).toBe(created)

		await warm()
		expect((await api('PUT', `/feed/post/${created}/like`, { token: alice.token })).status).toBe(
			200,
		)
		expect((await page(alice))[0]).toMatchObject({ _id: created, is_liked: true, likes_count: 1 })
		expect((await page(bob))[0]).toMatchObject({ _id: created, is_liked: false, likes_count: 1 })

		await warm()
		const edit = await api('PUT', `/feed/post/${created}`, {
			token: author.token,
			body: { text: 'fresh, edited' },
		})
		expect(edit.status).toBe(200)
		expect((await page(bob))[0]).toMatchObject({ _id: created, text: 'fresh, edited' })

		await warm(`topic_ids=${topic}`)
		expect((await api('DELETE', `/feed/post/${created}`, { token: author.token })).status).toBe(200)
		expect(ids(await page(alice))).not.toContain(created)
		expect(ids(await page(bob, `topic_ids=${topic}`))).not.toContain(created)
	})

	test('readers arriving together after a write share one computation; each gets the new post and its own flags', async () => {
		await warm()
		const created = await newPost(author, { text: 'read by many at once' })
		expect((await api('PUT', `/feed/post/${created}/like`, { token: alice.token })).status).toBe(
			200,
		)
		// The like moved the version: these reads find no current kept page and arrive
		// together, so all but the first wait for its computation (universal.ts computingShared)
		// or take the page it kept: one computation in all (the /metrics counter).
		const readers = [alice, bob, author, cm, alice, bob, author, cm]
		const before = await sharedPagesComputed()
		const pages = await Promise.all(readers.map((viewer) => page(viewer)))
		expect((await sharedPagesComputed()) - before).toBe(1)
		pages.forEach((posts, i) => {
			const viewer = readers[i] as TestUser
			expect(posts[0]).toMatchObject({
				_id: created,
				likes_count: 1,
				is_liked: viewer === alice,
			})
			const menu = (posts[0].menu_items as { id: number }[]).map((item) => item.id)
			if (viewer === author) expect(menu).toEqual([1, 2, 5])
			if (viewer === bob || viewer === alice) expect(menu).toEqual([4])
		})
	})

	test('a block shows at once for the blocker only; a disabled topic and a renamed author too', async () => {
		const mine = await newPost(author, { text: 'by the author' })
		await warm()
		const blocked = await api('PUT', `/user/${alice.uuid}/block`, {
			token: alice.token,
			body: { uuid: author.uuid, shouldBlock: true },
		})
		expect(blocked.status).toBe(200)
		expect(ids(await page(alice))).not.toContain(mine)
		expect(ids(await page(bob))[0]).toBe(mine)

		await page(bob, `topic_ids=${topic}`)
		await setTopicEnabled(cm, topic, false)
		expect(await page(bob, `topic_ids=${topic}`)).toEqual([])
		await setTopicEnabled(cm, topic, true)

		await warm()
		const renamed = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: author.uniqueId, user_name: 'Author Renamed' },
		})
		expect(renamed.status).toBe(200)
		const data = await feed(bob)
		expect(data.users[author.uuid].name).toBe('Author Renamed')
	})

	test('a page computed while its posts and authors are out of the cache reads them through', async () => {
		await warm()
		const before = await feed(bob)
		// What expiry leaves (no version bump): cached posts and users gone.
		const c = community.communityId
		await redis.del(
			...before.posts.map((p: { _id: string }) => keys.postCache(c, p._id)),
			keys.userCache(c, author.id),
		)
		await redis.incr(keys.feedVersion(c))
		const after = await feed(bob)
		expect(after.posts).toEqual(before.posts)
		expect(after.users).toEqual(before.users)
	})
})
