// Push sending against a real local fake of FCM (OAuth token endpoint + v1 send):
// one like → one push per device of the owner, in the platform's shape; the outcome
// rules (UNREGISTERED drops the token, 503 then 200 delivers once, a 401 gets one
// fresh OAuth token, THIRD_PARTY_AUTH_ERROR marks the credentials failing).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import {
	newCommunity,
	newUser,
	ownerToken,
	type TestCommunity,
	type TestUser,
} from '../support/community'
import { newPost } from '../support/content'
import { sql } from '../support/db'
import { type FakeFcm, fcmError, startFakeFcm } from '../support/fake-fcm'
import { api } from '../support/http'
import { pushStatuses, registerDevice, storeCredentials } from '../support/push'
import { waitFor } from '../support/wait'

let fake: FakeFcm
let stopEngine: () => Promise<void>
let community: TestCommunity
let owner: TestUser
let liker: TestUser

beforeAll(async () => {
	fake = startFakeFcm()
	community = await newCommunity('push')
	await storeCredentials(community, fake)
	owner = await newUser(community, { name: 'Owner' })
	liker = await newUser(community, { name: 'Liker' })
	stopEngine = startPush({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })
})

afterAll(async () => {
	await stopEngine()
	fake.stop()
})

const like = (user: TestUser, postId: string) =>
	api('PUT', `/feed/post/${postId}/like`, { token: user.token })
const settled = async (c: TestCommunity) => {
	const s = await pushStatuses(c)
	return !s.pending && !s.sending
}

describe('sending', () => {
	test('one like → exactly one push to each of the owner’s devices, in each platform’s shape', async () => {
		await registerDevice(owner, 'owner-android', 'tok-android', 'an')
		await registerDevice(owner, 'owner-iphone', 'tok-iphone', 'ios')
		const postId = await newPost(owner, { text: 'push me' })
		expect((await like(liker, postId)).status).toBe(200)
		await waitFor(() => fake.to('tok-android').length === 1 && fake.to('tok-iphone').length === 1)
		await waitFor(() => settled(community))
		const [android] = fake.to('tok-android')
		expect(android.project).toBe(`proj-${community.communityId}`)
		expect(android.data).toEqual({
			title: 'Liker liked your post',
			sub_title: '',
			route: `route://post_detail?post_id=${postId}`,
			category: 'like_on_your_post',
			community_id: String(community.communityId),
		})
		expect(android.message.android).toEqual({ priority: 'HIGH' })
		expect(android.message.notification).toBeUndefined()
		const [iphone] = fake.to('tok-iphone')
		expect(iphone.message.notification.title).toBe('Liker liked your post')
		expect(iphone.message.apns.payload.aps['mutable-content']).toBe(1)
		expect(fake.refused).toEqual([])

		// A new actor in the group is a new push; the same actor unliking and liking
		// again in that group is not.
		const third = await newUser(community, { name: 'Third' })
		await like(third, postId)
		await waitFor(() => fake.to('tok-android').length === 2)
		await like(liker, postId)
		await like(liker, postId)
		const fourth = await newUser(community, { name: 'Fourth' })
		await like(fourth, postId)
		await waitFor(() => fake.to('tok-android').length === 3)
		await waitFor(() => settled(community))
		expect(fake.to('tok-android').map((m) => m.data.title)).toEqual([
			'Liker liked your post',
			'Third liked your post',
			'Fourth liked your post',
		])
		expect((await pushStatuses(community)).sent).toBe(6)
	})

	test('UNREGISTERED → the token is deleted', async () => {
		const user = await newUser(community)
		await registerDevice(user, 'dead-phone', 'tok-dead')
		await registerDevice(user, 'live-phone', 'tok-live')
		fake.answer = (m) =>
			m.token === 'tok-dead'
				? fcmError(404, 'UNREGISTERED')
				: Response.json({ name: 'projects/x/messages/1' })
		await like(liker, await newPost(user))
		await waitFor(() => fake.to('tok-dead').length === 1 && fake.to('tok-live').length === 1)
		await waitFor(
			async () => (await sql`select 1 from devices where token = 'tok-dead'`).length === 0,
		)
		expect(await sql`select device_id from devices where user_id = ${user.id}`).toHaveLength(1)
	})

	test('503 with Retry-After, then 200 → delivered once; garbage answers do not block others', async () => {
		const user = await newUser(community)
		await registerDevice(user, 'flaky', 'tok-flaky')
		await registerDevice(user, 'steady', 'tok-steady')
		await registerDevice(user, 'garbage', 'tok-garbage')
		let flaky = 0
		fake.answer = (m) => {
			if (m.token === 'tok-garbage') return new Response('<html>oops</html>', { status: 500 })
			if (m.token === 'tok-flaky' && flaky++ === 0)
				return new Response('{}', { status: 503, headers: { 'retry-after': '0' } })
			return Response.json({ name: 'projects/x/messages/2' })
		}
		await like(liker, await newPost(user))
		await waitFor(() => fake.to('tok-flaky').length === 2 && fake.to('tok-steady').length === 1)
		// The garbage device is tried up to 5 times, then given up.
		await waitFor(() => fake.to('tok-garbage').length === 5, { timeoutMs: 15_000 })
		await waitFor(() => settled(community))
		const rows = await sql`
			select d.token, p.status, p.attempt from push_deliveries p join devices d using (community_id, device_id)
			where p.recipient_id = ${user.id} order by d.token`
		expect(rows.map((r) => [r.token, r.status, r.attempt])).toEqual([
			['tok-flaky', 'sent', 2],
			['tok-garbage', 'failed', 5],
			['tok-steady', 'sent', 1],
		])
	})

	test('a 401 gets one fresh OAuth token, and the push goes through', async () => {
		fake.answer = () => Response.json({ name: 'projects/x/messages/3' })
		const user = await newUser(community)
		await registerDevice(user, 'refresh', 'tok-refresh')
		const before = fake.exchanges
		fake.revokeAccessTokens()
		await like(liker, await newPost(user))
		await waitFor(() => fake.to('tok-refresh').length === 1)
		expect(fake.exchanges).toBe(before + 1)
	})

	test('THIRD_PARTY_AUTH_ERROR marks the credentials failing in GET /sdk/project', async () => {
		const user = await newUser(community)
		await registerDevice(user, 'apns-broken', 'tok-apns')
		fake.answer = () => fcmError(401, 'THIRD_PARTY_AUTH_ERROR')
		const project = () =>
			ownerToken(community).then((token) =>
				api('GET', '/sdk/project', {
					token,
					apiKey: community.apiKey,
					headers: { 'x-platform-type': 'dashboard' },
				}),
			)
		expect((await project()).body.data.push_service_account_file.is_failing).toBe(false)
		await like(liker, await newPost(user))
		await waitFor(async () => (await project()).body.data.push_service_account_file.is_failing)
		// Storing the file again clears the mark.
		fake.answer = () => Response.json({ name: 'projects/x/messages/4' })
		await storeCredentials(community, fake)
		expect((await project()).body.data.push_service_account_file.is_failing).toBe(false)
	})
})
