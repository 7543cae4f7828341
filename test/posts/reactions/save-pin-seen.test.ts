import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../../src/lib/keys'
import { redis } from '../../../src/lib/redis'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../../support/community'
import { block } from '../../support/connections'
import { eventsFor, newPost } from '../../support/content'
import { sql } from '../../support/db'
import { api } from '../../support/http'

let community: TestCommunity
let author: TestUser
let reader: TestUser
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('save-pin-seen')
	author = await newUser(community, { name: 'Author' })
	reader = await newUser(community, { name: 'Reader' })
	cm = await newUser(community, { role: 'cm' })
})

describe('PUT /feed/post/:post_id/save and GET /feed/user/:uuid/save', () => {
	test('toggles is_saved; the saved list is newest save first with users and total_count', async () => {
		const first = await newPost(author, { text: 'first' })
		const second = await newPost(author, { text: 'second' })
		const save = await api('PUT', `/feed/post/${first}/save`, { token: reader.token })
		expect(save.status).toBe(200)
		expect(save.body.data).toEqual({ is_saved: true })
		await api('PUT', `/feed/post/${second}/save`, { token: reader.token })
		expect(
			(await api('GET', `/feed/post/${first}`, { token: reader.token })).body.data.post.is_saved,
		).toBe(true)
		const feed = (await api('GET', '/feed/universal', { token: reader.token })).body.data.posts
		expect(feed.find((p: any) => p._id === first).is_saved).toBe(true)

		const list = await api('GET', `/feed/user/${reader.uuid}/save`, { token: reader.token })
		expect(list.status).toBe(200)
		expect(list.body.data.posts.map((p: any) => p._id)).toEqual([second, first])
		expect(list.body.data.posts[0]).toMatchObject({ is_saved: true, user_id: author.uuid })
		expect(list.body.data.total_count).toBe(2)
		expect(list.body.data.users[author.uuid].name).toBe('Author')
		const page2 = await api('GET', `/feed/user/${reader.uuid}/save?page=2&page_size=1`, {
			token: reader.token,
		})
		expect(page2.body.data.posts.map((p: any) => p._id)).toEqual([first])

		const unsave = await api('PUT', `/feed/post/${first}/save`, { token: reader.token })
		expect(unsave.body.data).toEqual({ is_saved: false })
		expect(
			(await api('GET', `/feed/post/${first}`, { token: reader.token })).body.data.post.is_saved,
		).toBe(false)
		const after = await api('GET', `/feed/user/${reader.uuid}/save`, { token: reader.token })
		expect(after.body.data.posts.map((p: any) => p._id)).toEqual([second])
		expect(after.body.data.total_count).toBe(1)
	})

	test('deleted posts leave the saved list; others may not read it; a CM may', async () => {
		const postId = await newPost(author)
		await api('PUT', `/feed/post/${postId}/save`, { token: reader.token })
		expect(
			(await api('GET', `/feed/user/${reader.uuid}/save`, { token: author.token })).status,
		).toBe(403)
		const byCm = await api('GET', `/feed/user/${reader.uuid}/save`, { token: cm.token })
		expect(byCm.status).toBe(200)
		expect(byCm.body.data.posts.map((p: any) => p._id)).toContain(postId)
		await api('DELETE', `/feed/post/${postId}`, { token: author.token })
		const after = await api('GET', `/feed/user/${reader.uuid}/save`, { token: reader.token })
		expect(after.body.data.posts.map((p: any) => p._id)).not.toContain(postId)
	})

	test('unknown users and posts are 404', async () => {
		expect((await api('GET', '/feed/user/not-a-uuid/save', { token: reader.token })).status).toBe(
			404,
		)
		expect(
			(
				await api('GET', '/feed/user/00000000-0000-4000-8000-000000000000/save', {
					token: reader.token,
				})
			).status,
		).toBe(404)
		expect(
			(await api('PUT', '/feed/post/0123456789abcdef01234567/save', { token: reader.token }))
				.status,
		).toBe(404)
		const foreign = await newUser(await newCommunity('save-other'))
		expect(
			(await api('GET', `/feed/user/${reader.uuid}/save`, { token: foreign.token })).status,
		).toBe(404)
	})
})

describe('PUT /feed/post/:post_id/pin', () => {
	test('the author and a CM toggle it; others are 403; post.pinned carries pinned_by', async () => {
		const postId = await newPost(author)
		const pin = await api('PUT', `/feed/post/${postId}/pin`, { token: author.token })
		expect(pin.status).toBe(200)
		expect(pin.body.data).toEqual({ is_pinned: true })
		expect(
			(await api('GET', `/feed/post/${postId}`, { token: reader.token })).body.data.post.is_pinned,
		).toBe(true)
		expect((await api('PUT', `/feed/post/${postId}/pin`, { token: reader.token })).status).toBe(403)
		const unpin = await api('PUT', `/feed/post/${postId}/pin`, { token: cm.token })
		expect(unpin.body.data).toEqual({ is_pinned: false })
		expect(
			(await api('GET', `/feed/post/${postId}`, { token: reader.token })).body.data.post.is_pinned,
		).toBe(false)
		const events = (await eventsFor(community, 'post.pinned')).filter((e) => e.post._id === postId)
		expect(events).toHaveLength(1)
		expect(events[0].pinned_by.uuid).toBe(author.uuid)
		expect(events[0].post.is_pinned).toBe(true)
		expect(
			(await api('PUT', '/feed/post/0123456789abcdef01234567/pin', { token: cm.token })).status,
		).toBe(404)
	})
})

describe('POST /feed/post/seen', () => {
	test('impressions count every view, reach counts unique viewers', async () => {
		const a = await newPost(author)
		const b = await newPost(author)
		const viewers = await Promise.all(Array.from({ length: 10 }, () => newUser(community)))
		// Each viewer reports both posts three times, all at once.
		await Promise.all(
			viewers.flatMap((v) =>
				[1, 2, 3].map(() =>
					api('POST', '/feed/post/seen', { token: v.token, body: { post_ids: [b, a, a] } }),
				),
			),
		)
		const rows =
			await sql`select id, impressions_count::int as impressions, reach_count from posts where id in ${sql([a, b])} order by id`
		for (const row of rows) expect(row).toMatchObject({ impressions: 30, reach_count: 10 })
		const reply = await api('POST', '/feed/post/seen', {
			token: reader.token,
			body: { post_ids: [a, 'unknown'] },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.posts).toEqual([{ _id: a, impressions_count: 31, reach_count: 11 }])
		const feedView = await api('GET', `/feed/post/${a}`, { token: reader.token })
		expect(feedView.body.data.post).toMatchObject({ impressions_count: 31, reach_count: 11 })
	})

	test('a cached post gets the new counters in place (not evicted, TTL kept)', async () => {
		// Attachments holding look-alike keys must not be rewritten instead of the post's own.
		const meta = { impressions_count: 7, reach_count: 7 }
		const a = await newPost(author, {
			attachments: [{ attachment_type: 1, attachment_meta: meta }],
		})
		await api('GET', `/feed/post/${a}`, { token: reader.token })
		const key = keys.postCache(community.communityId, a)
		expect(await redis.exists(key)).toBe(1)
		const viewers = await Promise.all(Array.from({ length: 4 }, () => newUser(community)))
		await Promise.all(
			viewers.flatMap((v) =>
				[1, 2].map(() =>
					api('POST', '/feed/post/seen', { token: v.token, body: { post_ids: [a] } }),
				),
			),
		)
		expect(await redis.exists(key)).toBe(1)
		expect(await redis.ttl(key)).toBeGreaterThan(0)
		const post = (await api('GET', `/feed/post/${a}`, { token: reader.token })).body.data.post
		expect(post).toMatchObject({ impressions_count: 8, reach_count: 4 })
		expect(post.attachments[0].attachment_meta).toEqual(meta)
		const feed = (await api('GET', '/feed/universal', { token: reader.token })).body.data.posts
		expect(feed.find((p: any) => p._id === a)).toMatchObject({
			impressions_count: 8,
			reach_count: 4,
		})
	})

	test('missing or empty post_ids is 400', async () => {
		expect((await api('POST', '/feed/post/seen', { token: reader.token, body: {} })).status).toBe(
			400,
		)
		expect(
			(await api('POST', '/feed/post/seen', { token: reader.token, body: { post_ids: [] } }))
				.status,
		).toBe(400)
		expect(
			(await api('POST', '/feed/post/seen', { token: reader.token, body: { post_ids: 'x' } }))
				.status,
		).toBe(400)
		expect((await api('POST', '/feed/post/seen', { body: { post_ids: ['x'] } })).status).toBe(401)
	})
})

describe('blocked users and likes', () => {
	test('a like by a user the viewer blocked is not listed, the count stays exact', async () => {
		const postId = await newPost(author)
		const blocked = await newUser(community)
		await api('PUT', `/feed/post/${postId}/like`, { token: blocked.token })
		await block(community, reader, blocked)
		const list = await api('GET', `/feed/post/${postId}/like`, { token: reader.token })
		expect(list.body.data.likes).toEqual([])
		expect(
			(await api('GET', `/feed/post/${postId}`, { token: author.token })).body.data.post
				.likes_count,
		).toBe(1)
	})
})
