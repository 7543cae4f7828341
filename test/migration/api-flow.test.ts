// The migration flow through the API: back-dated engagement (no events), like routes
// that set instead of toggle, and Idempotency-Key on POST routes — so a migration
// script run twice leaves the same community.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { eventsFor, newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let alice: TestUser
let bob: TestUser

const DAY = 86_400_000

beforeAll(async () => {
	community = await newCommunity('api-flow')
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
})

const likePost = (user: TestUser, postId: string, body?: unknown) =>
	api('PUT', `/feed/post/${postId}/like`, { token: user.token, body })
const comment = (user: TestUser, postId: string, body: unknown, headers = {}) =>
	api('POST', `/feed/post/${postId}/comment`, { token: user.token, body, headers })
const keyed = (key: string) => ({ 'idempotency-key': key })

async function eventCount(name: string): Promise<number> {
	return (await eventsFor(community, name)).length
}

describe('back-dated engagement', () => {
	test('a past created_at is stored on posts, comments, replies and likes, and emits no event', async () => {
		const past = Date.now() - 30 * DAY
		const before = await Promise.all(
			['post.created', 'comment.added', 'post.liked', 'comment.react'].map(eventCount),
		)
		const postId = await newPost(alice, { text: 'history', created_at: past })
		const root = await comment(bob, postId, { text: 'old comment', created_at: past + 1000 })
		expect(root.status).toBe(200)
		expect(root.body.data.comment.created_at).toBe(past + 1000)
		const rootId = root.body.data.comment._id
		const reply = await api('POST', `/feed/post/${postId}/comment/${rootId}/comment`, {
			token: alice.token,
			body: { text: 'old reply', created_at: past + 2000 },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.comment.created_at).toBe(past + 2000)
		expect((await likePost(bob, postId, { value: true, created_at: past + 3000 })).status).toBe(200)
		const commentLike = await api('PUT', `/feed/post/${postId}/comment/${rootId}/like`, {
			token: alice.token,
			body: { value: true, created_at: past + 4000 },
		})
		expect(commentLike.body.data).toMatchObject({ is_liked: true, likes_count: 1 })
		const likes = await api('GET', `/feed/post/${postId}/like`, { token: alice.token })
		expect(likes.body.data.likes[0].created_at).toBe(past + 3000)
		const after = await Promise.all(
			['post.created', 'comment.added', 'post.liked', 'comment.react'].map(eventCount),
		)
		expect(after).toEqual(before)

		// Positive control: the same writes without created_at are news and emit each event.
		const fresh = await newPost(alice, { text: 'news' })
		const freshComment = await comment(bob, fresh, { text: 'new comment' })
		await likePost(bob, fresh)
		await api('PUT', `/feed/post/${fresh}/comment/${freshComment.body.data.comment._id}/like`, {
			token: alice.token,
		})
		const control = await Promise.all(
			['post.created', 'comment.added', 'post.liked', 'comment.react'].map(eventCount),
		)
		expect(control).toEqual(before.map((n) => n + 1))
	})

	test('created_at more than 5 minutes ahead is 400 on comments and likes', async () => {
		const postId = await newPost(alice)
		const future = Date.now() + 60 * 60_000
		const c = await comment(bob, postId, { text: 'from the future', created_at: future })
		expect(c.status).toBe(400)
		expect(c.body.error_message).toContain('created_at')
		const l = await likePost(bob, postId, { created_at: future })
		expect(l.status).toBe(400)
		expect((await likePost(bob, postId)).body.data.is_liked).toBe(true)
	})
})

describe('like routes set with {value}', () => {
	test('value true twice stays liked, value false twice stays unliked; no body toggles', async () => {
		const postId = await newPost(alice)
		for (let i = 0; i < 2; i++) {
			const r = await likePost(bob, postId, { value: true })
			expect(r.body.data).toMatchObject({ is_liked: true, likes_count: 1 })
		}
		for (let i = 0; i < 2; i++) {
			const r = await likePost(bob, postId, { value: false })
			expect(r.body.data).toMatchObject({ is_liked: false, likes_count: 0 })
		}
		expect((await likePost(bob, postId)).body.data.is_liked).toBe(true)
		expect((await likePost(bob, postId)).body.data.is_liked).toBe(false)
		expect((await likePost(bob, postId, { value: 'yes' })).status).toBe(400)
	})
})

describe('Idempotency-Key', () => {
	const countPosts = async (user: TestUser) =>
		Number((await sql`select count(*)::int as n from posts where user_id = ${user.id}`)[0]!.n)

	test('a repeat returns the first answer and writes nothing; without a key it writes again', async () => {
		const carol = await newUser(community)
		const body = { text: 'once' }
		const first = await api('POST', '/feed/post', {
			token: carol.token,
			body,
			headers: keyed('k1'),
		})
		const second = await api('POST', '/feed/post', {
			token: carol.token,
			body,
			headers: keyed('k1'),
		})
		expect(first.status).toBe(200)
		expect(second.status).toBe(200)
		expect(second.body).toEqual(first.body)
		expect(second.headers.get('idempotent-replayed')).toBe('true')
		expect(await countPosts(carol)).toBe(1)
		await api('POST', '/feed/post', { token: carol.token, body })
		await api('POST', '/feed/post', { token: carol.token, body })
		expect(await countPosts(carol)).toBe(3)
	})

	test('concurrent repeats run the handler once and all get its answer', async () => {
		const dave = await newUser(community)
		const replies = await Promise.all(
			Array.from({ length: 6 }, () =>
				api('POST', '/feed/post', {
					token: dave.token,
					body: { text: 'race' },
					headers: keyed('race-1'),
				}),
			),
		)
		const ids = new Set(replies.map((r) => r.body.data?.post?._id))
		expect(replies.map((r) => r.status)).toEqual(Array(6).fill(200))
		expect(ids.size).toBe(1)
		expect(await countPosts(dave)).toBe(1)
	})

	test('the key is scoped to the caller and the path; a different body is 422; a bad key 400', async () => {
		const erin = await newUser(community)
		const frank = await newUser(community)
		const postId = await newPost(alice)
		const a = await comment(erin, postId, { text: 'same key' }, keyed('shared'))
		const b = await comment(frank, postId, { text: 'same key' }, keyed('shared'))
		expect(b.body.data.comment._id).not.toBe(a.body.data.comment._id)
		const onPost = await api('POST', '/feed/post', {
			token: erin.token,
			body: { text: 'same key' },
			headers: keyed('shared'),
		})
		expect(onPost.status).toBe(200)
		expect(onPost.body.data.post).toBeDefined()
		const changed = await comment(erin, postId, { text: 'another text' }, keyed('shared'))
		expect(changed.status).toBe(422)
		expect(changed.body.success).toBe(false)
		const bad = await comment(erin, postId, { text: 'x' }, keyed('has space'))
		expect(bad.status).toBe(400)
		const [{ n }] = await sql`select count(*)::int as n from comments where post_id = ${postId}`
		expect(n).toBe(2)
	})

	test('a failed request is not kept: its repeat runs again and may succeed', async () => {
		const gina = await newUser(community)
		const postId = await newPost(alice)
		const blank = await comment(gina, postId, { text: '   ' }, keyed('retry'))
		expect(blank.status).toBe(400)
		const again = await comment(gina, postId, { text: '   ' }, keyed('retry'))
		expect(again.status).toBe(400)
		expect(again.headers.get('idempotent-replayed')).toBeNull()
		const fixed = await comment(gina, postId, { text: 'fixed' }, keyed('retry'))
		expect(fixed.status).toBe(200)
		const replay = await comment(gina, postId, { text: 'fixed' }, keyed('retry'))
		expect(replay.headers.get('idempotent-replayed')).toBe('true')
		expect(replay.body.data.comment._id).toBe(fixed.body.data.comment._id)
	})
})

describe('the API migration flow', () => {
	async function migrate(target: TestCommunity, past: number) {
		const users: TestUser[] = []
		for (const id of ['m-1', 'm-2', 'm-3']) {
			const r = await api('POST', '/sdk/initiate', {
				apiKey: target.apiKey,
				body: { user_unique_id: id, user_name: id },
				headers: keyed(`user-${id}`),
			})
			const d = r.body.data
			users.push({ token: d.access_token, uuid: d.user.uuid, id: d.user.id } as TestUser)
		}
		const [u1, u2, u3] = users as [TestUser, TestUser, TestUser]
		const post = await api('POST', '/feed/post', {
			token: u1.token,
			body: { text: 'migrated', created_at: past },
			headers: keyed('post-p1'),
		})
		const postId = post.body.data.post._id
		for (const u of [u2, u3]) await likePost(u, postId, { value: true, created_at: past + 10 })
		const c = await comment(u2, postId, { text: 'hi', created_at: past + 20 }, keyed('c-1'))
		await api('POST', `/feed/post/${postId}/comment/${c.body.data.comment._id}/comment`, {
			token: u3.token,
			body: { text: 'reply', created_at: past + 30 },
			headers: keyed('c-2'),
		})
	}

	async function snapshot(target: TestCommunity) {
		return sql`
			select p.text, p.likes_count, p.comments_count, p.created_at::float8,
				(select count(*)::int from comments c
					where c.community_id = ${target.communityId} and c.post_id = p.id) as comments,
				(select count(*)::int from events e where e.community_id = ${target.communityId}) as events,
				(select count(*)::int from users u where u.community_id = ${target.communityId}) as users
			from posts p where p.community_id = ${target.communityId} order by p.id`
	}

	test('run twice, it gives the same community', async () => {
		const target = await newCommunity('api-migration')
		const past = Date.now() - 100 * DAY
		await migrate(target, past)
		const once = await snapshot(target)
		expect(once).toHaveLength(1)
		expect(once[0]).toMatchObject({ likes_count: 2, comments_count: 2, comments: 2 })
		await migrate(target, past)
		expect(await snapshot(target)).toEqual(once)
	})
})
