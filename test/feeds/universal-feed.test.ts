import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { scanKeys } from '../../src/lib/redis-slots'
import { rebuildCommunity } from '../../src/timelines/rebuild'
import { forgetBlocks } from '../../src/timelines/viewer-state'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createPost, createTopic, feed, ids, setTopicEnabled } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let alice: TestUser
let bob: TestUser
let viewer: TestUser
let topicA: string
let topicB: string
let widgetId: string
const posts: Record<string, string> = {}
const base = Date.now() - 3_600_000

// Ten posts a minute apart: a0..a3 in topic A, b0..b2 in topic B, w0/w1 with the widget
// (w1 also in topic A), p0 with no topic. Newest is the highest minute.
beforeAll(async () => {
	community = await newCommunity('feeds')
	cm = await newUser(community, { role: 'cm', name: 'CM' })
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
	viewer = await newUser(community, { name: 'Viewer' })
	topicA = await createTopic(cm, 'Topic A')
	topicB = await createTopic(cm, 'Topic B')
	const plan: [string, TestUser, Record<string, unknown>][] = [
		['a0', alice, { topic_ids: [topicA] }],
		['b0', bob, { topic_ids: [topicB] }],
		['p0', alice, {}],
		['a1', bob, { topic_ids: [topicA] }],
		[
			'w0',
			alice,
			{
				attachments: [
					{ attachment_type: 5, attachment_meta: { company_id: 'feed-co', company_name: 'Co' } },
				],
			},
		],
		['b1', alice, { topic_ids: [topicB] }],
		['a2', alice, { topic_ids: [topicA] }],
		[
			'w1',
			bob,
			{
				topic_ids: [topicA],
				attachments: [{ attachment_type: 5, attachment_meta: { company_id: 'feed-co' } }],
			},
		],
		['b2', bob, { topic_ids: [topicB] }],
		['a3', alice, { topic_ids: [topicA] }],
	]
	for (const [i, [name, author, extra]] of plan.entries()) {
		const post = await createPost(author, { text: name, created_at: base + i * 60_000, ...extra })
		posts[name] = post._id
		if (name === 'w0') widgetId = post.widget_ids[0]
	}
})

const named = (list: { text: string }[]) => list.map((p) => p.text)

describe('GET /feed/universal', () => {
	test('newest first by created_at, with users keyed by uuid and viewer menu', async () => {
		const data = await feed(viewer)
		expect(named(data.posts)).toEqual(['a3', 'b2', 'w1', 'a2', 'b1', 'w0', 'a1', 'p0', 'b0', 'a0'])
		expect(Object.keys(data.users).sort()).toEqual([alice.uuid, bob.uuid].sort())
		expect(data.users[alice.uuid]).toMatchObject({ name: 'Alice', uuid: alice.uuid, id: alice.id })
		expect(data.posts[0]).toMatchObject({
			user_id: alice.uuid,
			uuid: alice.uuid,
			is_liked: false,
			is_saved: false,
		})
		expect(data.posts[0].menu_items).toEqual([{ id: 4, title: 'Report' }])
		const own = await feed(alice)
		expect(own.posts[0].menu_items.map((m: { id: number }) => m.id)).toEqual([1, 2, 5])
	})

	test('pages with page/page_size; page_size is capped at 100; bad paging is 400', async () => {
		const p1 = await feed(viewer, 'page=1&page_size=4')
		const p2 = await feed(viewer, 'page=2&page_size=4')
		const p3 = await feed(viewer, 'page=3&page_size=4')
		expect(named(p1.posts)).toEqual(['a3', 'b2', 'w1', 'a2'])
		expect(named(p2.posts)).toEqual(['b1', 'w0', 'a1', 'p0'])
		expect(named(p3.posts)).toEqual(['b0', 'a0'])
		expect(p3.next_cursor).toBeNull()
		expect((await feed(viewer, 'page=4&page_size=4')).posts).toEqual([])
		expect((await feed(viewer, 'page_size=1000')).posts).toHaveLength(10)
		expect((await api('GET', '/feed/universal?page_size=0', { token: viewer.token })).status).toBe(
			400,
		)
		expect((await api('GET', '/feed/universal?page=abc', { token: viewer.token })).status).toBe(400)
		expect((await api('GET', '/feed/universal?cursor=%%%', { token: viewer.token })).status).toBe(
			400,
		)
		expect((await api('GET', '/feed/universal')).status).toBe(401)
	})

	test('cursor paging has no duplicates while new posts arrive', async () => {
		const first = await feed(viewer, 'page_size=3')
		expect(first.next_cursor).toBeString()
		const fresh = await createPost(alice, { text: 'brand new' })
		const second = await feed(viewer, `page_size=3&cursor=${first.next_cursor}`)
		expect(named(second.posts)).toEqual(['a2', 'b1', 'w0'])
		expect(ids(second.posts)).not.toContain(fresh._id)
		await api('DELETE', `/feed/post/${fresh._id}`, { token: alice.token })
	})

	test('topic_ids and widget_ids filters: any of the topics, any of the widgets, both must hold', async () => {
		expect(named((await feed(viewer, `topic_ids=${topicA}`)).posts)).toEqual([
			'a3',
			'w1',
			'a2',
			'a1',
			'a0',
		])
		expect(named((await feed(viewer, `topic_ids=${topicA},${topicB}&page_size=5`)).posts)).toEqual([
			'a3',
			'b2',
			'w1',
			'a2',
			'b1',
		])
		const json = encodeURIComponent(JSON.stringify([topicB, topicA]))
		expect(named((await feed(viewer, `topic_ids=${json}&page=2&page_size=5`)).posts)).toEqual([
			'a1',
			'b0',
			'a0',
		])
		// Repeated and empty entries of a comma list name nothing more.
		expect(named((await feed(viewer, `topic_ids=${topicB},,${topicB},`)).posts)).toEqual([
			'b2',
			'b1',
			'b0',
		])
		expect(named((await feed(viewer, `widget_ids=${widgetId}`)).posts)).toEqual(['w1', 'w0'])
		expect(named((await feed(viewer, `widget_ids=${widgetId}&topic_ids=${topicA}`)).posts)).toEqual(
			['w1'],
		)
		expect(named((await feed(viewer, `widget_ids=${widgetId}&topic_ids=${topicB}`)).posts)).toEqual(
			[],
		)
		expect(named((await feed(viewer, `topic_ids=${topicB}`, '/feed/group')).posts)).toEqual([
			'b2',
			'b1',
			'b0',
		])
	})

	test('more than 50 filter ids are 400, whatever form the list takes', async () => {
		const many = Array.from({ length: 51 }, (_, i) => `id${i}`)
		for (const list of [many.join(','), encodeURIComponent(JSON.stringify(many))]) {
			const reply = await api('GET', `/feed/universal?topic_ids=${list}`, { token: viewer.token })
			expect(reply.status).toBe(400)
			expect(reply.body).toMatchObject({
				success: false,
				error_message: 'topic_ids may name at most 50 ids',
			})
		}
	})

	test('unknown and foreign filter ids are 404', async () => {
		const other = await newCommunity('feeds-other')
		const otherCm = await newUser(other, { role: 'cm' })
		const foreign = await createTopic(otherCm, 'Foreign')
		for (const query of [
			`topic_ids=${foreign}`,
			'topic_ids=000000000000000000000000',
			'widget_ids=000000000000000000000000',
			`topic_ids=${topicA},nope`,
		]) {
			const reply = await api('GET', `/feed/universal?${query}`, { token: viewer.token })
			expect({ query, status: reply.status }).toEqual({ query, status: 404 })
		}
	})

	test('per-viewer is_liked and is_saved follow likes and saves at once', async () => {
		expect((await api('PUT', `/feed/post/${posts.b2}/like`, { token: viewer.token })).status).toBe(
			200,
		)
		expect((await api('PUT', `/feed/post/${posts.a3}/save`, { token: viewer.token })).status).toBe(
			200,
		)
		const mine = (await feed(viewer, 'page_size=2')).posts
		expect(
			mine.map((p: { is_liked: boolean; is_saved: boolean }) => [p.is_liked, p.is_saved]),
		).toEqual([
			[false, true],
			[true, false],
		])
		expect(mine[1].likes_count).toBe(1)
		const theirs = (await feed(bob, 'page_size=2')).posts
		expect(
			theirs.map((p: { is_liked: boolean; is_saved: boolean }) => [p.is_liked, p.is_saved]),
		).toEqual([
			[false, false],
			[false, false],
		])
		expect(theirs[1].likes_count).toBe(1)
		await api('PUT', `/feed/post/${posts.b2}/like`, { token: viewer.token })
		const after = (await feed(viewer, 'page_size=2')).posts
		expect([after[1].is_liked, after[1].likes_count]).toEqual([false, 0])
		await api('PUT', `/feed/post/${posts.a3}/save`, { token: viewer.token })
	})

	test('posts whose topics are all disabled leave every feed; filtering by a disabled topic returns nothing', async () => {
		await setTopicEnabled(cm, topicB, false)
		expect(named((await feed(viewer)).posts)).toEqual(['a3', 'w1', 'a2', 'w0', 'a1', 'p0', 'a0'])
		expect((await feed(viewer, `topic_ids=${topicB}`)).posts).toEqual([])
		expect(named((await feed(viewer, `topic_ids=${topicA},${topicB}`)).posts)).toEqual([
			'a3',
			'w1',
			'a2',
			'a1',
			'a0',
		])
		const bobsList = async (as: TestUser) =>
			named(
				(await api('GET', `/feed/user/${bob.uuid}/post?page_size=100`, { token: as.token })).body
					.data.posts,
			)
		expect(await bobsList(viewer)).not.toContain('b2')
		expect(await bobsList(bob)).toContain('b2')
		await setTopicEnabled(cm, topicB, true)
		expect(await bobsList(viewer)).toContain('b2')
		expect(named((await feed(viewer)).posts)).toHaveLength(10)
	})

	test('blocked users are hidden both ways and pages still fill', async () => {
		const blocker = await newUser(community, { name: 'Blocker' })
		await sql`insert into blocks (community_id, blocker_id, blocked_id) values (${community.communityId}, ${blocker.id}, ${bob.id})`
		await forgetBlocks([blocker.id, bob.id])
		expect(named((await feed(blocker, 'page_size=3')).posts)).toEqual(['a3', 'a2', 'b1'])
		expect(named((await feed(blocker, 'page=2&page_size=3')).posts)).toEqual(['w0', 'p0', 'a0'])
		const cursor = (await feed(blocker, 'page_size=3')).next_cursor
		expect(named((await feed(blocker, `page_size=3&cursor=${cursor}`)).posts)).toEqual([
			'w0',
			'p0',
			'a0',
		])
		expect(Object.keys((await feed(blocker)).users)).toEqual([alice.uuid])
		// Bob does not see the blocker's posts either.
		const byBlocker = await createPost(blocker, { text: 'hello from blocker' })
		expect(ids((await feed(bob)).posts)).not.toContain(byBlocker._id)
		expect(ids((await feed(alice)).posts)).toContain(byBlocker._id)
		const list = await api('GET', `/feed/user/${blocker.uuid}/post`, { token: bob.token })
		expect(list.body.data.posts).toEqual([])
		await api('DELETE', `/feed/post/${byBlocker._id}`, { token: blocker.token })
	})

	test('tenant isolation: another community sees none of these posts', async () => {
		const other = await newCommunity('feeds-isolated')
		const stranger = await newUser(other)
		expect((await feed(stranger)).posts).toEqual([])
		expect(
			(await api('GET', `/feed/universal?topic_ids=${topicA}`, { token: stranger.token })).status,
		).toBe(404)
	})

	test('flush and rebuild from Postgres gives identical pages', async () => {
		const queries = [
			'page_size=4',
			'page=2&page_size=4',
			`topic_ids=${topicA}`,
			`widget_ids=${widgetId}`,
			`topic_ids=${topicA},${topicB}&page_size=3&page=2`,
		]
		const before = []
		for (const q of queries) before.push(await feed(viewer, q))
		// SCAN on every master: KEYS on a cluster client asks one node only.
		const tagged = await scanKeys(redis, `*{c${community.communityId}}*`)
		expect(tagged).toContain(keys.universalFeed(community.communityId))
		await redis.del(...tagged)
		await redis.del(keys.viewerFlags(viewer.id))
		expect(await redis.exists(keys.universalFeed(community.communityId))).toBe(0)
		expect(await rebuildCommunity(community.communityId)).toBeGreaterThanOrEqual(10)
		for (const [i, q] of queries.entries()) expect(await feed(viewer, q)).toEqual(before[i])

		// Without the script: the first read after a flush rebuilds the community itself.
		await redis.del(...(await scanKeys(redis, `*{c${community.communityId}}*`)))
		for (const [i, q] of queries.entries()) expect(await feed(viewer, q)).toEqual(before[i])
	})

	test('a rebuild puts each post in exactly the sets its writes put it in (disabled topic, deleted and connections-only posts, widgets)', async () => {
		const c = community.communityId
		await setTopicEnabled(cm, topicB, false)
		const deleted = await createPost(alice, { text: 'gone', topic_ids: [topicA] })
		await api('DELETE', `/feed/post/${deleted._id}`, { token: alice.token })
		await createPost(bob, { text: 'friends only', visibility: 'connections', topic_ids: [topicA] })
		const sets = [
			keys.universalFeed(c),
			keys.topicFeed(c, topicA),
			keys.topicFeed(c, topicB),
			keys.widgetFeed(c, widgetId),
		]
		const contents = () => Promise.all(sets.map((key) => redis.zrange(key, 0, -1, 'WITHSCORES')))
		const written = await contents()
		// Topic B's posts are out of the universal feed, still in their topic's set.
		expect(written[0]).not.toContain(posts.b0)
		expect(written[2]).toContain(posts.b0)
		await redis.del(...(await scanKeys(redis, `*{c${c}}*`)))
		await rebuildCommunity(c)
		expect(await contents()).toEqual(written)
		await setTopicEnabled(cm, topicB, true)
	})
})
