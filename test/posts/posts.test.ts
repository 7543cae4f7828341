import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createPost, createTopic, feed, ids, setTopicEnabled } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let alice: TestUser
let bob: TestUser

beforeAll(async () => {
	community = await newCommunity('posts')
	cm = await newUser(community, { role: 'cm', name: 'Carla CM' })
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
})

const menuIds = (post: { menu_items: { id: number }[] }) => post.menu_items.map((m) => m.id)

describe('POST /feed/post', () => {
	test('creates a post with topics, attachments and tags; answers post, users, topics, widgets', async () => {
		const topic = await createTopic(cm, 'Jobs')
		const body = {
			text: `Hello <<Bob|route://member/${bob.uuid}>> and <<Carla|route://user_profile/${cm.uuid}>>`,
			heading: 'First',
			topic_ids: [topic],
			attachments: [
				{
					attachment_type: 1,
					attachment_meta: { url: 'https://x/y.png', format: 'png', size: 1200, name: 'y' },
				},
				{
					attachment_type: 5,
					attachment_meta: {
						company_id: 'acme-1',
						company_name: 'Acme',
						company_image_url: 'https://x/acme.png',
					},
				},
			],
		}
		const reply = await api('POST', '/feed/post', { token: alice.token, body })
		expect(reply.status).toBe(200)
		const { post, users, topics, widgets } = reply.body.data
		expect(post._id).toMatch(/^[0-9a-f]{24}$/)
		expect(post.user_id).toBe(alice.uuid)
		expect(post.uuid).toBe(alice.uuid)
		expect(post.heading).toBe('First')
		expect(post.topics).toEqual([topic])
		expect(post.is_liked).toBe(false)
		expect(post.is_saved).toBe(false)
		expect(post.is_edited).toBe(false)
		expect(post.likes_count).toBe(0)
		expect(menuIds(post)).toEqual([1, 2, 5])
		expect(post.attachments[0]).toMatchObject({
			file_type: 1,
			file_url: 'https://x/y.png',
			file_format: 'png',
			file_size: '1200',
		})
		const widgetId = post.attachments[1].attachment_meta.entity_id
		expect(widgets[widgetId].metadata).toMatchObject({ company_id: 'acme-1', company_name: 'Acme' })
		expect(users[alice.uuid].name).toBe('Alice')
		expect(topics[topic]).toMatchObject({ name: 'Jobs', post_count: 1 })

		// The second post of the company reuses its widget through entity_id.
		const again = await createPost(alice, {
			text: 'again',
			attachments: [{ attachment_type: 5, attachment_meta: { entity_id: widgetId } }],
		})
		expect(again.widget_ids).toEqual([widgetId])
		const byCompany = await createPost(bob, {
			text: 'same company',
			attachments: [{ attachment_type: 5, attachment_meta: { company_id: 'acme-1' } }],
		})
		expect(byCompany.widget_ids).toEqual([widgetId])

		const tags =
			await sql`select user_id::float8 as user_id from post_tags where post_id = ${post._id} order by user_id`
		expect(tags.map((t) => t.user_id).sort()).toEqual([bob.id, cm.id].sort())
		const events =
			await sql`select event, data from events where community_id = ${community.communityId} and data->'post'->>'_id' = ${post._id}`
		const created = events.find((e) => e.event === 'post.created')
		expect(created?.data.post).toMatchObject({
			_id: post._id,
			uuid: alice.uuid,
			heading: 'First',
			topics: [topic],
		})
		expect(created?.data.topics[0]).toMatchObject({ _id: topic, name: 'Jobs', level: 0 })
		expect(created?.data.widgets[0]._id).toBe(widgetId)
		expect(created?.data.post_creator.uuid).toBe(alice.uuid)
		const tagged = events.find((e) => e.event === 'post.tagged')
		expect(tagged?.data.tagged_users.map((u: { uuid: string }) => u.uuid).sort()).toEqual(
			[bob.uuid, cm.uuid].sort(),
		)
	})

	test('back-dated created_at places the post by that time', async () => {
		const old = Date.now() - 86_400_000 * 30
		const post = await createPost(alice, { text: 'from the archive', created_at: old })
		expect(post.created_at).toBe(old)
		const page = await feed(bob, 'page_size=100')
		const positions = page.posts.map((p: { created_at: number }) => p.created_at)
		expect([...positions].sort((a, b) => b - a)).toEqual(positions)
		expect(ids(page.posts)).toContain(post._id)
	})

	test('bad input: 400 and nothing written', async () => {
		const other = await newCommunity('posts-other')
		const otherCm = await newUser(other, { role: 'cm' })
		const foreignTopic = await createTopic(otherCm, 'Elsewhere')
		const disabled = await createTopic(cm, 'Old news')
		await setTopicEnabled(cm, disabled, false)
		const before =
			await sql`select count(*)::int as n from posts where community_id = ${community.communityId}`
		const cases: [Record<string, unknown>, number][] = [
			[{}, 400],
			[{ text: '   ' }, 400],
			[{ heading: 'only a heading' }, 400],
			[{ text: 'x'.repeat(10_001) }, 400],
			[{ text: 'x', heading: 'h'.repeat(301) }, 400],
			[{ text: 'x', created_at: Date.now() + 10 * 60_000 }, 400],
			[{ text: 'x', topic_ids: [foreignTopic] }, 400],
			[{ text: 'x', topic_ids: [disabled] }, 400],
			[{ text: 'x', topic_ids: ['000000000000000000000000'] }, 400],
			[{ text: 'x', visibility: 'everyone' }, 400],
			[
				{
					text: 'x',
					attachments: [
						{ attachment_type: 5, attachment_meta: { entity_id: '000000000000000000000000' } },
					],
				},
				404,
			],
			[{ text: 'x', attachments: [{ attachment_type: 'one' }] }, 400],
		]
		for (const [body, status] of cases) {
			const reply = await api('POST', '/feed/post', { token: alice.token, body })
			expect({ body, status: reply.status }).toEqual({ body, status })
			expect(reply.body.success).toBe(false)
		}
		const after =
			await sql`select count(*)::int as n from posts where community_id = ${community.communityId}`
		expect(after[0]?.n).toBe(before[0]?.n)
		// A little in the future is fine (clock skew).
		expect(
			(await createPost(alice, { text: 'soon', created_at: Date.now() + 60_000 }))._id,
		).toBeString()
	})

	test('missing token is 401', async () => {
		expect((await api('POST', '/feed/post', { body: { text: 'x' } })).status).toBe(401)
	})
})

describe('GET|PUT|DELETE /feed/post/:post_id', () => {
	test('get returns the post with per-viewer menu; unknown and foreign ids are 404', async () => {
		const post = await createPost(alice, { text: 'read me' })
		const asBob = await api('GET', `/feed/post/${post._id}`, { token: bob.token })
		expect(asBob.status).toBe(200)
		expect(asBob.body.data.post.text).toBe('read me')
		expect(menuIds(asBob.body.data.post)).toEqual([4])
		const asCm = await api('GET', `/feed/post/${post._id}`, { token: cm.token })
		expect(menuIds(asCm.body.data.post)).toEqual([1, 2, 4])
		expect(
			(await api('GET', '/feed/post/000000000000000000000000', { token: bob.token })).status,
		).toBe(404)
		expect((await api('GET', '/feed/post/not-an-id', { token: bob.token })).status).toBe(404)
		const other = await newCommunity('posts-foreign')
		const stranger = await newUser(other)
		expect((await api('GET', `/feed/post/${post._id}`, { token: stranger.token })).status).toBe(404)
		expect((await api('DELETE', `/feed/post/${post._id}`, { token: stranger.token })).status).toBe(
			404,
		)
	})

	test('get carries a page of root comments as replies, their authors in users', async () => {
		const post = await createPost(alice, { text: 'discuss' })
		const comment = await api('POST', `/feed/post/${post._id}/comment`, {
			token: bob.token,
			body: { text: 'first!' },
		})
		expect(comment.status).toBe(200)
		const reply = await api('GET', `/feed/post/${post._id}`, { token: alice.token })
		expect(reply.body.data.post.replies.map((r: { text: string }) => r.text)).toEqual(['first!'])
		expect(reply.body.data.post.comments_count).toBe(1)
		expect(Object.keys(reply.body.data.users).sort()).toEqual([alice.uuid, bob.uuid].sort())
	})

	test('edit by the author marks is_edited and moves topics; others get 403', async () => {
		const t1 = await createTopic(cm, 'Edit A')
		const t2 = await createTopic(cm, 'Edit B')
		const post = await createPost(alice, { text: 'draft', topic_ids: [t1] })
		expect(
			(await api('PUT', `/feed/post/${post._id}`, { token: bob.token, body: { text: 'hijack' } }))
				.status,
		).toBe(403)
		const reply = await api('PUT', `/feed/post/${post._id}`, {
			token: alice.token,
			body: { text: 'final', topic_ids: [t2] },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.post).toMatchObject({ text: 'final', is_edited: true, topics: [t2] })
		expect(ids((await feed(bob, `topic_ids=${t1}`)).posts)).not.toContain(post._id)
		expect(ids((await feed(bob, `topic_ids=${t2}`)).posts)).toContain(post._id)
		const counts = await api('GET', `/feed/post/${post._id}`, { token: bob.token })
		expect(counts.body.data.topics[t2].post_count).toBe(1)
		expect(
			(await api('PUT', `/feed/post/${post._id}`, { token: alice.token, body: { text: '' } }))
				.status,
		).toBe(400)
	})

	test('soft delete by a CM records who and why and leaves the feed at once', async () => {
		const post = await createPost(alice, { text: 'to be removed' })
		expect(ids((await feed(bob)).posts)).toContain(post._id)
		expect((await api('DELETE', `/feed/post/${post._id}`, { token: bob.token })).status).toBe(403)
		const reply = await api('DELETE', `/feed/post/${post._id}`, {
			token: cm.token,
			body: { delete_reason: 'spam' },
		})
		expect(reply.status).toBe(200)
		expect(ids((await feed(bob)).posts)).not.toContain(post._id)
		expect((await api('GET', `/feed/post/${post._id}`, { token: alice.token })).status).toBe(404)
		expect((await api('DELETE', `/feed/post/${post._id}`, { token: alice.token })).status).toBe(404)
		const [row] =
			await sql`select is_deleted, deleted_by::float8 as deleted_by, delete_reason from posts where id = ${post._id}`
		expect(row).toEqual({ is_deleted: true, deleted_by: cm.id, delete_reason: 'spam' })
	})
})

describe('visibility', () => {
	test('private posts: author and CMs only; connections posts stay out of the universal feed', async () => {
		const secret = await createPost(alice, { text: 'private note', visibility: 'private' })
		const friends = await createPost(alice, { text: 'for connections', visibility: 'connections' })
		expect(secret.visibility).toBe('private')
		expect((await api('GET', `/feed/post/${secret._id}`, { token: bob.token })).status).toBe(404)
		expect((await api('GET', `/feed/post/${secret._id}`, { token: cm.token })).status).toBe(200)
		expect((await api('GET', `/feed/post/${secret._id}`, { token: alice.token })).status).toBe(200)
		for (const viewer of [alice, bob, cm]) {
			const universal = ids((await feed(viewer, 'page_size=100')).posts)
			expect(universal).not.toContain(secret._id)
			expect(universal).not.toContain(friends._id)
		}
		const own = await api('GET', `/feed/user/${alice.uuid}/post?page_size=100`, {
			token: alice.token,
		})
		expect(ids(own.body.data.posts)).toContain(secret._id)
		const seenByBob = await api('GET', `/feed/user/${alice.uuid}/post?page_size=100`, {
			token: bob.token,
		})
		expect(ids(seenByBob.body.data.posts)).not.toContain(secret._id)
		expect(ids(seenByBob.body.data.posts)).not.toContain(friends._id)
	})
})

describe('GET /feed/user/:uuid/post', () => {
	test('pages a user posts newest first with total_count and users', async () => {
		const dan = await newUser(community, { name: 'Dan' })
		const made = []
		for (let i = 0; i < 5; i++)
			made.push(
				await createPost(dan, { text: `dan ${i}`, created_at: Date.now() - (5 - i) * 1000 }),
			)
		const first = await api('GET', `/feed/user/${dan.uuid}/post?page=1&page_size=2`, {
			token: bob.token,
		})
		expect(first.status).toBe(200)
		expect(first.body.data.total_count).toBe(5)
		expect(ids(first.body.data.posts)).toEqual([made[4]._id, made[3]._id])
		expect(first.body.data.users[dan.uuid].name).toBe('Dan')
		const third = await api('GET', `/feed/user/${dan.uuid}/post?page=3&page_size=2`, {
			token: bob.token,
		})
		expect(ids(third.body.data.posts)).toEqual([made[0]._id])
		expect(
			(
				await api('GET', '/feed/user/00000000-0000-0000-0000-000000000000/post', {
					token: bob.token,
				})
			).status,
		).toBe(404)
		expect((await api('GET', '/feed/user/nope/post', { token: bob.token })).status).toBe(404)
	})
})
