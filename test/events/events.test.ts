// Feed events reach webhooks through the API that causes them, with the data keys of
// the spec's table; notifications.feed follows the activities (likes, comments, replies,
// tags, connection requests), carries the push's data and customer ids, and is paged
// 1,000 at a time.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startDelivery } from '../../src/webhooks/engine'
import { recordFeedNotification } from '../../src/webhooks/outbox'
import { newUser, type TestUser } from '../support/community'
import { block as blockUser, enableConnections } from '../support/connections'
import { eventsFor, newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'
import { type Receiver, startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'
import { register, type Setup, setup } from '../support/webhooks'

let stopEngine: () => Promise<void>
let receiver: Receiver
let s: Setup
let author: TestUser
let fan: TestUser

beforeAll(async () => {
	stopEngine = startDelivery({ pollMs: 20 })
	receiver = startReceiver()
	s = await setup('wh-events')
	author = await newUser(s.community, { name: 'Asha' })
	fan = await newUser(s.community, { name: 'Bo' })
})

afterAll(async () => {
	await stopEngine()
	receiver.stop()
})

/** A committed notifications.feed event that later assertions wait for. */
const recordMarker = (text: string) =>
	sql.begin((tx) =>
		recordFeedNotification(tx, {
			communityId: s.community.communityId,
			payload: { action: 'marker', activity_text: text },
			uuids: [author.uuid],
		}),
	)
const isMarker =
	(text?: string) =>
	(body: { data: { notification_payload: { action: string; activity_text?: string } } }) =>
		body.data.notification_payload.action === 'marker' &&
		(text === undefined || body.data.notification_payload.activity_text === text)

const at = (path: string) => receiver.url.replace('/hook', path)
const bodiesAt = (path: string) =>
	receiver.receipts.filter((r) => r.path === path).map((r) => r.json)

describe('feed events', () => {
	test('post.created, post.liked and comment.added carry the spec data keys; notifications.feed tells the author', async () => {
		for (const type of ['post.created', 'post.liked', 'comment.added', 'notifications.feed'])
			await register(s, at(`/${type}`), type)
		const postId = await newPost(author)
		const like = await api('PUT', `/feed/post/${postId}/like`, { token: fan.token })
		expect(like.status).toBe(200)
		const comment = await api('POST', `/feed/post/${postId}/comment`, {
			token: fan.token,
			body: { text: 'nice' },
		})
		expect(comment.status).toBe(200)
		// The author liking their own post notifies nobody.
		await api('PUT', `/feed/post/${postId}/like`, { token: author.token })

		await waitFor(
			() =>
				bodiesAt('/post.created').length === 1 &&
				bodiesAt('/post.liked').length === 2 &&
				bodiesAt('/comment.added').length === 1,
		)
		await waitFor(() => bodiesAt('/notifications.feed').length === 2)
		// The self-like's absence is checked after a marker recorded later has arrived, and
		// in the outbox: only the two notices were ever recorded for this post.
		await recordMarker('after self-like')
		await waitFor(() => bodiesAt('/notifications.feed').some(isMarker('after self-like')))
		await Bun.sleep(200)
		expect(bodiesAt('/notifications.feed').filter((b) => !isMarker()(b))).toHaveLength(2)
		const recorded = (await eventsFor(s.community, 'notifications.feed')).filter((d) =>
			d.notification_payload.route?.includes(postId),
		)
		expect(recorded).toHaveLength(2)

		const [postCreated] = bodiesAt('/post.created')
		expect(Object.keys(postCreated.data).sort()).toEqual([
			'post',
			'post_creator',
			'topics',
			'widgets',
		])
		expect(postCreated.data.post._id).toBe(postId)
		const liked = bodiesAt('/post.liked').find((b) => b.data.post_liked_by.uuid === fan.uuid)
		expect(liked.data.post_creator.uuid).toBe(author.uuid)
		const [added] = bodiesAt('/comment.added')
		expect(Object.keys(added.data).sort()).toEqual([
			'comment',
			'comment_creator',
			'post',
			'post_creator',
			'topics',
			'widgets',
		])

		const notices = bodiesAt('/notifications.feed')
			.filter((b) => !isMarker()(b))
			.map((b) => b.data)
		// Recipients by customer id; the payload is the push's data (DESIGN section 9).
		for (const n of notices) {
			expect(n).toMatchObject({ current_page: 1, total_pages: 1, uuids: [author.uniqueId] })
			expect(n.notification_payload.route).toStartWith(`route://post_detail?post_id=${postId}`)
			expect(n.notification_payload.community_id).toBe(String(s.community.communityId))
			expect(n.notification_payload.sub_title).toBe('')
			expect(Object.keys(n.notification_payload).sort()).toEqual([
				'category',
				'community_id',
				'route',
				'sub_title',
				'title',
			])
		}
		const byCategory = Object.fromEntries(
			notices.map((n) => [n.notification_payload.category, n.notification_payload.title]),
		)
		expect(byCategory).toEqual({
			like_on_your_post: 'Bo liked your post',
			comment_on_your_post: 'Bo commented on your post',
		})
	})

	test('notifications.feed follows activities: a blocked liker tells no webhook, a connection request does', async () => {
		await register(s, at('/follows'), 'notifications.feed')
		const stranger = await newUser(s.community, { name: 'Cy' })
		const postId = await newPost(author)
		await blockUser(s.community, author, stranger)
		expect((await api('PUT', `/feed/post/${postId}/like`, { token: stranger.token })).status).toBe(
			200,
		)
		await enableConnections(s.community)
		const asked = await api('POST', `/community/member/${author.uuid}/connection`, {
			token: fan.token,
			body: { connection_type: 'two_way' },
		})
		expect(asked.status).toBe(200)
		await waitFor(() =>
			bodiesAt('/follows').some(
				(b) => b.data.notification_payload.category === 'connection_request',
			),
		)
		const request = bodiesAt('/follows').find(
			(b) => b.data.notification_payload.category === 'connection_request',
		)
		expect(request.data.uuids).toEqual([author.uniqueId])
		expect(request.data.notification_payload.route).toBe(`route://user_profile/${fan.uuid}`)
		// The blocked like was written before the request: had it notified, it would be here.
		const recorded = (await eventsFor(s.community, 'notifications.feed')).filter((d) =>
			d.notification_payload.route?.includes(postId),
		)
		expect(recorded).toHaveLength(0)
		expect(bodiesAt('/follows').map((b) => b.data.notification_payload.category)).toEqual([
			'connection_request',
		])
	})

	test('notifications.feed pages recipients 1,000 uuids at a time', async () => {
		const hook = await register(s, at('/paged'), 'notifications.feed')
		const uuids = Array.from({ length: 2500 }, () => crypto.randomUUID())
		await sql.begin((tx) =>
			recordFeedNotification(tx, {
				communityId: s.community.communityId,
				payload: { action: 'custom_activity', activity_text: 'hi' },
				uuids,
			}),
		)
		await waitFor(() => bodiesAt('/paged').length === 3)
		const pages = bodiesAt('/paged')
			.map((b) => b.data)
			.sort((a, b) => a.current_page - b.current_page)
		expect(pages.map((p) => [p.current_page, p.total_pages, p.uuids.length])).toEqual([
			[1, 3, 1000],
			[2, 3, 1000],
			[3, 3, 500],
		])
		expect(pages.flatMap((p) => p.uuids)).toEqual(uuids)
		expect(pages[0].notification_payload).toEqual({
			action: 'custom_activity',
			activity_text: 'hi',
		})
		expect(hook.is_active).toBe(true)
	})

	test('an event in a rolled-back transaction is never delivered', async () => {
		await register(s, at('/rollback'), 'notifications.feed')
		await sql
			.begin(async (tx) => {
				await recordFeedNotification(tx, {
					communityId: s.community.communityId,
					payload: { action: 'x' },
					uuids: [fan.uuid],
				})
				throw new Error('roll back')
			})
			.catch(() => {})
		// A committed marker written after the rollback arrives; the rolled-back event never.
		await recordMarker('after rollback')
		await waitFor(() => bodiesAt('/rollback').some(isMarker('after rollback')))
		await Bun.sleep(1200)
		expect(bodiesAt('/rollback').map((b) => b.data.notification_payload.action)).toEqual(['marker'])
		const recorded = await eventsFor(s.community, 'notifications.feed')
		expect(recorded.filter((d) => d.notification_payload.action === 'x')).toHaveLength(0)
	})
})
