import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser

beforeAll(async () => {
	community = await newCommunity('settings')
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community)
})

describe('community settings', () => {
	test('user_connection is listed and off by default', async () => {
		const reply = await api('GET', '/community/settings', { token: member.token })
		expect(reply.status).toBe(200)
		const setting = reply.body.data.community_settings.find(
			(s: any) => s.setting_type === 'user_connection',
		)
		expect(setting).toMatchObject({ enabled: false, setting_type: 'user_connection' })
		expect(setting.setting_title).toBeString()
	})

	test('a CM upserts by setting_type; a second PUT updates instead of duplicating', async () => {
		const put = (enabled: boolean, title?: string) =>
			api('PUT', '/community/settings', {
				token: cm.token,
				headers: { 'x-platform-type': 'dashboard' },
				body: {
					community_settings: [
						{
							setting_type: 'user_connection',
							enabled,
							setting_title: title,
							setting_sub_title: 'sub',
						},
					],
				},
			})
		expect((await put(true, 'Connect')).status).toBe(200)
		const second = await put(false)
		expect(second.status).toBe(200)
		const list = (await api('GET', '/community/settings', { token: member.token })).body.data
			.community_settings
		const rows = list.filter((s: any) => s.setting_type === 'user_connection')
		expect(rows).toHaveLength(1)
		// An omitted title keeps the stored one.
		expect(rows[0]).toEqual({
			setting_type: 'user_connection',
			enabled: false,
			setting_title: 'Connect',
			setting_sub_title: 'sub',
		})
	})

	test('members cannot change settings; bad bodies are 400', async () => {
		const body = { community_settings: [{ setting_type: 'user_connection', enabled: true }] }
		const denied = await api('PUT', '/community/settings', { token: member.token, body })
		expect(denied.status).toBe(403)
		expect(denied.body).toEqual({
			success: false,
			error_message: 'You are not CM/Owner of this community',
		})
		const bad = await api('PUT', '/community/settings', {
			token: cm.token,
			body: { community_settings: [{ enabled: 'yes' }] },
		})
		expect(bad.status).toBe(400)
		expect(bad.body.success).toBe(false)
	})
})

describe('conversation notification settings', () => {
	const path = '/community/settings/notification/conversation'

	test('defaults to 1 and a CM sets 1, 2 or 3', async () => {
		const before = await api('GET', path, { token: member.token })
		expect(before.status).toBe(200)
		expect(before.body.community_notification_settings).toEqual({ noti_state: 1 })
		for (const state of [3, 2]) {
			const put = await api('PUT', path, { token: cm.token, body: { noti_state: state } })
			expect(put.status).toBe(200)
			expect(put.body.success).toBe(true)
		}
		const after = await api('GET', path, { token: member.token })
		expect(after.body.community_notification_settings).toEqual({ noti_state: 2 })
	})

	test('a member gets the exact spec message with 403', async () => {
		const reply = await api('PUT', path, { token: member.token, body: { noti_state: 1 } })
		expect(reply.status).toBe(403)
		expect(reply.body).toEqual({
			success: false,
			error_message: 'You are not CM/Owner of this community',
		})
	})

	test('noti_state outside 1-3 is 400', async () => {
		for (const noti_state of [0, 4, 1.5, 'x']) {
			const reply = await api('PUT', path, { token: cm.token, body: { noti_state } })
			expect(reply.status).toBe(400)
			expect(reply.body.success).toBe(false)
		}
		expect((await api('PUT', path, { token: cm.token, body: {} })).status).toBe(400)
	})
})
