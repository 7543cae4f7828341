// Custom activities by a CM (recipients by uuid or customer id, bad input refused
// whole) and device registration (one token per device, moved on re-registration,
// removed on logout).
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser
let other: TestUser
let postId: string

beforeAll(async () => {
	community = await newCommunity('custom-activities')
	cm = await newUser(community, { role: 'cm', name: 'Manager' })
	member = await newUser(community, { name: 'Member' })
	other = await newUser(community, { name: 'Other' })
	postId = await newPost(cm, { text: 'announcement' })
})

const custom = (user: TestUser, body: Record<string, unknown>) =>
	api('POST', '/feed/user/activity', { token: user.token, body })
const valid = () => ({
	action: 'custom_activity',
	action_by: cm.uuid,
	action_on: [member.uuid, other.uniqueId],
	entity_type: 'post',
	entity_id: postId,
	activity_text: 'Read the <<Manager|route://user_profile/x>> announcement',
})
const activitiesOf = async (user: TestUser) =>
	(await api('GET', '/feed/user/activity', { token: user.token })).body.data.activities

describe('custom activities', () => {
	test('a CM creates one activity per recipient, named by uuid or customer id', async () => {
		const reply = await custom(cm, valid())
		expect(reply.status).toBe(200)
		expect(reply.body.success).toBe(true)
		for (const user of [member, other]) {
			const [activity] = await activitiesOf(user)
			expect(activity.action).toBe(99)
			expect(activity.activity_text).toBe(valid().activity_text)
			expect(activity.action_by).toEqual([cm.uuid])
			expect(activity.activity_entity_data._id).toBe(postId)
		}
		// Two custom activities never group.
		await custom(cm, valid())
		expect((await activitiesOf(member)).filter((a: any) => a.action === 99)).toHaveLength(2)
		const [event] = await sql`
			select data from events where community_id = ${community.communityId} and event = 'notifications.feed'
			order by created_at desc limit 1`
		expect(event.data.uuids.sort()).toEqual([member.uniqueId, other.uniqueId].sort())
		expect(event.data.notification_payload.category).toBe('custom_activity')
	})

	test('a recipient list past the default 256 KB body limit is read (here: all unknown → 400)', async () => {
		const many = Array.from({ length: 8000 }, (_, i) => `nobody-${i}-${'x'.repeat(30)}`)
		const reply = await custom(cm, { ...valid(), action_on: many })
		expect(reply.status).toBe(400)
		expect(reply.body.error_message).toContain('and 7980 more')
	})

	test('a member gets the spec’s message', async () => {
		const reply = await custom(member, valid())
		expect(reply.status).toBe(403)
		expect(reply.body.error_message).toBe('You are not Authorized to perform this action')
	})

	test('bad input is a 400 and creates nothing', async () => {
		const before = (await activitiesOf(other)).length
		const cases: [Record<string, unknown>, string][] = [
			[{ ...valid(), action: 'like' }, 'action must be custom_activity'],
			[{ ...valid(), entity_type: 'chatroom' }, 'entity_type must be post, comment or user'],
			[{ ...valid(), action_on: [other.uuid, 'nobody-here'] }, 'nobody-here'],
			[{ ...valid(), entity_id: '0123456789abcdef01234567' }, 'Unknown post'],
			[{ ...valid(), activity_text: '   ' }, 'activity_text is required'],
		]
		for (const [body, message] of cases) {
			const reply = await custom(cm, body)
			expect(reply.status).toBe(400)
			expect(reply.body.error_message).toContain(message)
		}
		const { activity_text: _, ...withoutText } = valid()
		expect((await custom(cm, withoutText)).status).toBe(400)
		expect((await activitiesOf(other)).length).toBe(before)
	})
})

const register = (user: TestUser, device: string, token: string, platform = 'an') =>
	api('POST', '/user/device/push', {
		token: user.token,
		headers: { 'x-device-id': device, 'x-platform-code': platform },
		body: { token },
	})
const devicesOf = async (user: TestUser) => [
	...(await sql`select device_id, token, platform from devices where user_id = ${user.id} order by device_id`),
]

describe('devices', () => {
	test('one token per device; re-registering moves the device; logout removes it', async () => {
		expect((await register(member, 'phone-1', 'tok-a')).status).toBe(200)
		expect((await register(member, 'phone-1', 'tok-b', 'ios')).status).toBe(200)
		expect(await devicesOf(member)).toEqual([
			{ device_id: 'phone-1', token: 'tok-b', platform: 'ios' },
		])
		expect((await register(other, 'phone-1', 'tok-c')).status).toBe(200)
		expect(await devicesOf(member)).toEqual([])
		expect(await devicesOf(other)).toHaveLength(1)
		const out = await api('POST', '/user/logout', {
			token: other.token,
			headers: { 'x-device-id': 'phone-1' },
		})
		expect(out.status).toBe(200)
		expect(await devicesOf(other)).toEqual([])
	})

	test('a bad platform code or a missing device id is a 400', async () => {
		const bad = await register(member, 'phone-2', 'tok', 'windows')
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain('x-platform-code')
		const missing = await api('POST', '/user/device/push', {
			token: member.token,
			headers: { 'x-platform-code': 'an' },
			body: { token: 'tok' },
		})
		expect(missing.status).toBe(400)
		expect(await devicesOf(member)).toEqual([])
		expect((await register(member, 'phone-2', 'tok', 'fl')).status).toBe(200)
	})
})
