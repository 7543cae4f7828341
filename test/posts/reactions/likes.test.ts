import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../../support/community'
import { block, connect, enableConnections } from '../../support/connections'
import { eventsFor, newPost } from '../../support/content'
import { sql } from '../../support/db'
import { api } from '../../support/http'

let community: TestCommunity
let author: TestUser
let fan: TestUser

beforeAll(async () => {
	community = await newCommunity('likes')
	author = await newUser(community, { name: 'Author' })
	fan = await newUser(community, { name: 'Fan' })
})

describe('PUT /feed/post/:post_id/like', () => {
	test('toggles, keeps likes_count and the viewer flag right, emits post.liked once', async () => {
		const postId = await newPost(author)
		const like = await api('PUT', `/feed/post/${postId}/like`, { token: fan.token })
		expect(like.status).toBe(200)
		expect(like.body.data).toEqual({ is_liked: true, likes_count: 1 })
		const seen = await api('GET', `/feed/post/${postId}`, { token: fan.token })
		expect(seen.body.data.post).toMatchObject({ likes_count: 1, is_liked: true })
		const inFeed = async (user: TestUser) =>
			(await api('GET', '/feed/universal', { token: user.token })).body.data.posts.find(
				(p: any) => p._id === postId,
			)
		expect(await inFeed(fan)).toMatchObject({ likes_count: 1, is_liked: true })
		expect(await inFeed(author)).toMatchObject({ likes_count: 1, is_liked: false })

		const unlike = await api('PUT', `/feed/post/${postId}/like`, { token: fan.token })
		expect(unlike.body.data).toEqual({ is_liked: false, likes_count: 0 })
		const after = await api('GET', `/feed/post/${postId}`, { token: fan.token })
		expect(after.body.data.post).toMatchObject({ likes_count: 0, is_liked: false })
		expect(await inFeed(fan)).toMatchObject({ likes_count: 0, is_liked: false })

		const events = (await eventsFor(community, 'post.liked')).filter((e) => e.post._id === postId)
		expect(events).toHaveLength(1)
		expect(Object.keys(events[0]).sort()).toEqual([
			'post',
			'post_creator',
			'post_liked_by',
			'topics',
			'widgets',
		])
		expect(events[0].post_liked_by.uuid).toBe(fan.uuid)
		expect(events[0].post_creator.uuid).toBe(author.uuid)
		expect(events[0].post.likes_count).toBe(1)
	})

	test('50 parallel likes by 50 users give likes_count 50', async () => {
		const postId = await newPost(author)
		const users = await Promise.all(
			Array.from({ length: 50 }, (_, i) => newUser(community, { name: `L${i}` })),
		)
		const replies = await Promise.all(
			users.map((u) => api('PUT', `/feed/post/${postId}/like`, { token: u.token })),
		)
		expect(replies.every((r) => r.status === 200 && r.body.data.is_liked)).toBe(true)
		const [row] = await sql`select likes_count from posts where id = ${postId}`
		expect(row!.likes_count).toBe(50)
		const list = await api('GET', `/feed/post/${postId}/like?page_size=100`, {
			token: author.token,
		})
		expect(list.body.data.total_count).toBe(50)
		const fromApi = await api('GET', `/feed/post/${postId}`, { token: author.token })
		expect(fromApi.body.data.post.likes_count).toBe(50)
	})

	test('parallel toggles by the same users keep likes_count equal to the likes stored', async () => {
		const postId = await newPost(author)
		const users = await Promise.all(
			Array.from({ length: 5 }, (_, i) => newUser(community, { name: `T${i}` })),
		)
		// Each user's toggles race each other: two unlikes may both find the like and
		// only one removes it; the other must not count a removal.
		for (let round = 0; round < 3; round++)
			await Promise.all(
				users.flatMap((u) =>
					Array.from({ length: 8 }, () =>
						api('PUT', `/feed/post/${postId}/like`, { token: u.token }).then((r) =>
							expect(r.status).toBe(200),
						),
					),
				),
			)
		const [row] = await sql`
			select likes_count, (select count(*)::int from post_likes where post_id = ${postId}) as stored
			from posts where id = ${postId}`
		expect(row!.likes_count).toBe(row!.stored)
	})

	test("likes and unlikes of one batch over several posts all reach the warm caches: each post's count, each liker's flag", async () => {
		const posts = [await newPost(author), await newPost(author), await newPost(author)]
		const users = await Promise.all(
			Array.from({ length: 6 }, (_, i) => newUser(community, { name: `B${i}` })),
		)
		const like = (u: TestUser, postId: string) =>
			api('PUT', `/feed/post/${postId}/like`, { token: u.token }).then((r) =>
				expect(r.status).toBe(200),
			)
		const early = users.slice(0, 3)
		const late = users.slice(3)
		for (const u of early) for (const postId of posts) await like(u, postId)
		const read = (u: TestUser, postId: string) =>
			api('GET', `/feed/post/${postId}`, { token: u.token }).then((r) => r.body.data.post)
		// Every post cached and every liked set loaded before the batch.
		for (const u of users) for (const postId of posts) await read(u, postId)

		// Sent together: the early likers take back their like of the first post while the
		// late ones like the first two.
		await Promise.all([
			...early.map((u) => like(u, posts[0]!)),
			...late.flatMap((u) => [like(u, posts[0]!), like(u, posts[1]!)]),
		])

		const likers = [late, users, early]
		for (const [i, postId] of posts.entries())
			for (const u of users)
				expect(await read(u, postId)).toMatchObject({
					likes_count: likers[i]!.length,
					is_liked: likers[i]!.includes(u),
				})
	})

	test('likes of two communities sent together: each post locked, read and counted in its own community', async () => {
		const other = await newCommunity('likes-other')
		const otherAuthor = await newUser(other, { name: 'Other author' })
		const here = await newPost(author)
		const there = await newPost(otherAuthor)
		const likers = await Promise.all([
			...Array.from({ length: 4 }, (_, i) => newUser(community, { name: `H${i}` })),
			...Array.from({ length: 4 }, (_, i) => newUser(other, { name: `T${i}` })),
		])
		// A post id sent in the other community's name is that community's 404, whatever
		// its batch holds.
		const answers = await Promise.all([
			...likers.map((u, i) =>
				api('PUT', `/feed/post/${i < 4 ? here : there}/like`, { token: u.token }),
			),
			api('PUT', `/feed/post/${there}/like`, { token: fan.token }),
		])
		expect(answers.slice(0, 8).map((a) => a.status)).toEqual(Array(8).fill(200))
		expect(answers[8]?.status).toBe(404)
		const counts = await sql<{ id: string; likes_count: number }[]>`
			select id, likes_count from posts where id in (${here}, ${there}) order by id`
		expect(Object.fromEntries(counts.map((c) => [c.id, c.likes_count]))).toEqual({
			[here]: 4,
			[there]: 4,
		})
		expect(
			answers
				.slice(0, 8)
				.map((a) => a.body.data.likes_count)
				.sort(),
		).toEqual([1, 1, 2, 2, 3, 3, 4, 4])
	})

	test('unknown, foreign and deleted posts are 404; no token is 401', async () => {
		expect(
			(await api('PUT', '/feed/post/0123456789abcdef01234567/like', { token: fan.token })).status,
		).toBe(404)
		const other = await newCommunity('likes-other')
		const stranger = await newUser(other)
		const postId = await newPost(author)
		expect((await api('PUT', `/feed/post/${postId}/like`, { token: stranger.token })).status).toBe(
			404,
		)
		expect((await api('GET', `/feed/post/${postId}/like`, { token: stranger.token })).status).toBe(
			404,
		)
		expect((await api('PUT', `/feed/post/${postId}/like`)).status).toBe(401)
		await api('DELETE', `/feed/post/${postId}`, { token: author.token })
		expect((await api('PUT', `/feed/post/${postId}/like`, { token: fan.token })).status).toBe(404)
	})
})

describe('likes sent together (one group commit)', () => {
	test('each keeps its own answer: a deleted post is 404, a back-dated like notifies nobody, {value: true} twice sets it once; counts, events and activities exact', async () => {
		const live = await newPost(author)
		const other = await newPost(author)
		const gone = await newPost(author)
		await api('DELETE', `/feed/post/${gone}`, { token: author.token })
		const likers = await Promise.all(
			Array.from({ length: 6 }, (_, i) => newUser(community, { name: `G${i}` })),
		)
		const [archivist, setter] = await Promise.all([
			newUser(community, { name: 'Archivist' }),
			newUser(community, { name: 'Setter' }),
		])
		const like = (user: TestUser, postId: string, body?: object) =>
			api('PUT', `/feed/post/${postId}/like`, { token: user.token, body })
		const replies = await Promise.all([
			...likers.map((u) => like(u, live)),
			like(fan, gone),
			like(archivist, live, { created_at: Date.now() - 86_400_000 }),
			...likers.slice(0, 3).map((u) => like(u, other)),
			like(setter, other, { value: true }),
			like(setter, other, { value: true }),
		])
		expect(replies.map((r) => r.status)).toEqual([
			...likers.map(() => 200),
			404,
			200,
			...Array(5).fill(200),
		])
		expect(replies[6]?.body.success).toBe(false)
		expect(replies[6]?.body.error_message).toBeString()
		expect(replies.slice(-2).map((r) => r.body.data.is_liked)).toEqual([true, true])
		// Every answer's count is the count as that like left it: on one post, each once.
		const liveCounts = replies.slice(0, 6).map((r) => r.body.data.likes_count)
		liveCounts.push(replies[7]?.body.data.likes_count)
		expect(liveCounts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7])

		const counts = await sql`
			select id, likes_count, (select count(*)::int from post_likes l where l.community_id = p.community_id and l.post_id = p.id) as stored
			from posts p where id in ${sql([live, other, gone])}`
		const byId = new Map(counts.map((r) => [r.id, r]))
		expect(byId.get(live)).toMatchObject({ likes_count: 7, stored: 7 })
		expect(byId.get(other)).toMatchObject({ likes_count: 4, stored: 4 })
		expect(byId.get(gone)).toMatchObject({ likes_count: 0, stored: 0 })

		const events = await eventsFor(community, 'post.liked')
		const likedBy = (postId: string) =>
			events
				.filter((e) => e.post._id === postId)
				.map((e) => e.post_liked_by.uuid)
				.sort()
		// The back-dated like is history: no event, no activity.
		expect(likedBy(live)).toEqual(likers.map((u) => u.uuid).sort())
		expect(likedBy(other)).toEqual([...likers.slice(0, 3), setter].map((u) => u.uuid).sort())
		expect(likedBy(gone)).toEqual([])
		const activity = await api('GET', '/feed/user/activity?page=1&page_size=50', {
			token: author.token,
		})
		const actors = (postId: string) =>
			activity.body.data.activities
				.filter((a: any) => a.entity_id === postId && a.action === 6)
				.flatMap((a: any) => a.action_by)
				.sort()
		expect(actors(live)).toEqual(likers.map((u) => u.uuid).sort())
		expect(actors(other)).toEqual([...likers.slice(0, 3), setter].map((u) => u.uuid).sort())
	})
})

describe('a batch of likes in one transaction', () => {
	test('each like row commits with its counter, its activity, its post.liked and its notifications.feed event', async () => {
		const posts = await Promise.all(Array.from({ length: 4 }, () => newPost(author)))
		const likers = await Promise.all(posts.map((_, i) => newUser(community, { name: `T${i}` })))
		const replies = await Promise.all(
			posts.map((postId, i) =>
				api('PUT', `/feed/post/${postId}/like`, { token: likers[i]?.token }),
			),
		)
		expect(replies.map((r) => r.body.data)).toEqual(
			posts.map(() => ({ is_liked: true, likes_count: 1 })),
		)
		// One transaction id per like (xmin) on every row it wrote: a statement sent after
		// an early COMMIT would commit alone and show another.
		const rows = await sql`
			select p.xmin::text as counter,
				(select l.xmin::text from post_likes l where l.community_id = p.community_id and l.post_id = p.id) as like_row,
				(select a.xmin::text from activities a
					where a.community_id = p.community_id and a.entity_id = p.id and a.action = 6) as activity,
				(select e.xmin::text from events e where e.community_id = p.community_id
					and e.event = 'post.liked' and e.data->'post'->>'_id' = p.id) as liked,
				(select e.xmin::text from events e where e.community_id = p.community_id
					and e.event = 'notifications.feed'
					and e.data->'notification_payload'->>'route' = 'route://post_detail?post_id=' || p.id) as notified
			from posts p where p.id in ${sql(posts)}`
		expect(rows).toHaveLength(4)
		for (const r of rows) {
			expect(r.like_row).toBeString()
			expect([r.counter, r.activity, r.liked, r.notified]).toEqual(Array(4).fill(r.like_row))
		}
	})
})

describe('GET /feed/post/:post_id/like', () => {
	test('lists likes newest first with users and total_count; pages; hides blocked users both ways', async () => {
		const postId = await newPost(author)
		const a = await newUser(community, { name: 'A' })
		const b = await newUser(community, { name: 'B' })
		const c = await newUser(community, { name: 'C' })
		for (const u of [a, b, c]) await api('PUT', `/feed/post/${postId}/like`, { token: u.token })
		const all = await api('GET', `/feed/post/${postId}/like`, { token: author.token })
		expect(all.status).toBe(200)
		expect(all.body.data.total_count).toBe(3)
		expect(all.body.data.likes.map((l: any) => l.user_id)).toEqual([c.uuid, b.uuid, a.uuid])
		expect(all.body.data.likes[0]._id).toMatch(/^[0-9a-f]{24}$/)
		expect(all.body.data.likes[0].created_at).toBeNumber()
		// feed-js's declared Like reads `uuid` and `updated_at` too.
		expect(all.body.data.likes[0].uuid).toBe(c.uuid)
		expect(all.body.data.likes[0].updated_at).toBe(all.body.data.likes[0].created_at)
		expect(all.body.data.users[a.uuid]).toMatchObject({ name: 'A', uuid: a.uuid })

		const page2 = await api('GET', `/feed/post/${postId}/like?page=2&page_size=2`, {
			token: author.token,
		})
		expect(page2.body.data.likes.map((l: any) => l.user_id)).toEqual([a.uuid])
		expect(page2.body.data.total_count).toBe(3)

		const viewer = await newUser(community)
		await block(community, viewer, a)
		await block(community, b, viewer)
		const filtered = await api('GET', `/feed/post/${postId}/like`, { token: viewer.token })
		expect(filtered.body.data.likes.map((l: any) => l.user_id)).toEqual([c.uuid])
		expect(filtered.body.data.total_count).toBe(1)
		expect(Object.keys(filtered.body.data.users)).toEqual([c.uuid])
	})

	test('bad paging is 400', async () => {
		const postId = await newPost(author)
		expect(
			(await api('GET', `/feed/post/${postId}/like?page=0`, { token: fan.token })).status,
		).toBe(400)
		expect(
			(await api('GET', `/feed/post/${postId}/like?page_size=abc`, { token: fan.token })).status,
		).toBe(400)
	})
})

describe('visibility of the liked post', () => {
	test("a connections post can be liked by the author's connections only; a private one by the author and CMs", async () => {
		const own = await newCommunity('likes-visibility')
		await enableConnections(own)
		const writer = await newUser(own)
		const friend = await newUser(own)
		const stranger = await newUser(own)
		const cm = await newUser(own, { role: 'cm' })
		await connect(friend, writer)
		const forConnections = await newPost(writer, { visibility: 'connections' })
		const like = (user: TestUser, postId: string) =>
			api('PUT', `/feed/post/${postId}/like`, { token: user.token })
		expect((await like(stranger, forConnections)).status).toBe(404)
		expect((await like(friend, forConnections)).status).toBe(200)
		expect((await like(cm, forConnections)).status).toBe(200)
		const secret = await newPost(writer, { visibility: 'private' })
		expect((await like(friend, secret)).status).toBe(404)
		expect((await like(cm, secret)).status).toBe(200)
		expect((await like(writer, secret)).status).toBe(200)
	})
})
