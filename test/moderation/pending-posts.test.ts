// Pending posts through the HTTP API: under post_moderation a member's new post exists
// only for its author and CMs — no feed, no post.created webhook — until a CM approves
// it (then it is placed and fires, dated then) or rejects it (deleted, the author told).
// Every "not there" has its positive control.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { eventsFor, feed, ids, newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser
let bystander: TestUser
let cm: TestUser

const moderate = (body: Record<string, unknown>) =>
	api('PUT', '/community/settings/moderation', { token: cm.token, body })

const page = (user: TestUser, postId: string) =>
	api('GET', `/feed/post/${postId}`, { token: user.token })

const ownList = async (user: TestUser) =>
	ids((await api('GET', `/feed/user/${user.uuid}/post`, { token: user.token })).body.data.posts)

const created = async (postId: string) =>
	(await eventsFor(community, 'post.created')).filter(
		(e) => e.post.id === postId || e.post._id === postId,
	)

async function pendingQueue() {
	const reply = await api('GET', '/community/report?filter_type=["pending_post"]', {
		token: cm.token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data
}

const handleOf = async (postId: string) =>
	(await pendingQueue()).reports_data.find((g: { entity_id: string }) => g.entity_id === postId)
		?.reports[0]?.id as number

beforeAll(async () => {
	community = await newCommunity('pending-posts')
	author = await newUser(community)
	bystander = await newUser(community)
	cm = await newUser(community, { role: 'cm' })
})

describe('post_moderation', () => {
	test('bad values name the field; a member cannot change it', async () => {
		const bad = await moderate({ post_moderation: 'sometimes' })
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain('post_moderation')
		const member = await api('PUT', '/community/settings/moderation', {
			token: author.token,
			body: { post_moderation: 'all' },
		})
		expect(member.status).toBe(403)
		const read = await api('GET', '/community/settings/moderation', { token: author.token })
		expect(read.body.data.post_moderation).toBe('off')
	})

	test('all: the post exists for its author and CMs only until approved, then fires as created then', async () => {
		expect((await moderate({ post_moderation: 'all' })).status).toBe(200)
		const postId = await newPost(author, { text: 'waiting for a CM' })
		expect((await page(author, postId)).status).toBe(200)
		expect((await page(cm, postId)).status).toBe(200)
		expect((await page(bystander, postId)).status).toBe(404)
		expect(await ownList(author)).toContain(postId)
		expect(ids((await feed(bystander)).posts)).not.toContain(postId)
		expect(ids((await feed(author)).posts)).not.toContain(postId)
		expect(await created(postId)).toEqual([])
		const queued = await pendingQueue()
		expect(queued.posts[postId].text).toBe('waiting for a CM')
		// A report action does not close a pending post.
		const wrong = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [await handleOf(postId)], action_taken: 'POST_APPROVED' },
		})
		expect(wrong.status).toBe(400)
		expect(wrong.body.error_message).toContain('action_taken')

		const before = Date.now()
		const approved = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [await handleOf(postId)], action_taken: 'PENDING_POST_APPROVED' },
		})
		expect(approved.status).toBe(200)
		expect(ids((await feed(bystander)).posts)).toContain(postId)
		expect((await page(bystander, postId)).status).toBe(200)
		expect((await page(bystander, postId)).body.data.post.created_at).toBeGreaterThanOrEqual(before)
		expect((await created(postId)).length).toBe(1)
		expect(
			(await pendingQueue()).reports_data.map((g: { entity_id: string }) => g.entity_id),
		).not.toContain(postId)
	})

	test('a rejected post is deleted and its author told', async () => {
		const postId = await newPost(author, { text: 'not fit' })
		expect((await page(author, postId)).status).toBe(200)
		const rejected = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [await handleOf(postId)], action_taken: 'PENDING_POST_REJECTED' },
		})
		expect(rejected.status).toBe(200)
		expect((await page(author, postId)).status).toBe(404)
		expect(await created(postId)).toEqual([])
		const activity = await api('GET', '/feed/user/activity', { token: author.token })
		expect(JSON.stringify(activity.body)).toContain('did not approve your post')
	})

	test("new_members: a member's first N posts wait, later ones and CMs' do not", async () => {
		expect(
			(await moderate({ post_moderation: 'new_members', post_moderation_first_n: 1 })).status,
		).toBe(200)
		const cmPost = await newPost(cm, { text: 'from a CM' })
		expect(ids((await feed(bystander)).posts)).toContain(cmPost)
		const newcomer = await newUser(community)
		const first = await newPost(newcomer, { text: 'my first' })
		expect(ids((await feed(bystander)).posts)).not.toContain(first)
		const approved = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [await handleOf(first)], action_taken: 'PENDING_POST_APPROVED' },
		})
		expect(approved.status).toBe(200)
		const second = await newPost(newcomer, { text: 'my second' })
		expect(ids((await feed(bystander)).posts)).toContain(second)
		expect((await moderate({ post_moderation: 'off' })).status).toBe(200)
		const free = await newPost(await newUser(community), { text: 'moderation off' })
		expect(ids((await feed(bystander)).posts)).toContain(free)
	})
})
