// POST /logs (chat-js ErrorLogging.pushLogs) and device registration without
// x-platform-code (feed-js): accepted, bounded, rate-limited; the logs reach the log
// stream of a real process.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { spawnPlaza } from '../support/process'

let community: TestCommunity
let member: TestUser

beforeAll(async () => {
	community = await newCommunity('client-logs')
	member = await newUser(community)
})

/** One report as chat-js sends it (its Log, snake-cased by the SDK). */
const report = (exception: string) => ({
	timestamp: Date.now(),
	severity: 4,
	device_meta: {
		os: 'web',
		version_o_s: '1',
		device_name: 'browser',
		screen_height: 800,
		screen_width: 600,
		wifi: true,
	},
	stack_trace: { exception, trace: 'at app.js:1:1' },
	sdk_meta: { data_layer_version: '1.0', core_version: '1.16.0' },
})

describe('POST /logs', () => {
	test('accepted for a member; bounded (entries, field sizes, body); 401 without a token', async () => {
		const ok = await api('POST', '/logs', { token: member.token, body: { logs: [report('boom')] } })
		expect(ok.status).toBe(200)
		expect(ok.body).toEqual({ success: true, error_message: null })
		const many = await api('POST', '/logs', {
			token: member.token,
			body: { logs: Array.from({ length: 51 }, () => ({ severity: 1 })) },
		})
		expect(many.status).toBe(400)
		expect(many.body.error_message).toContain('logs')
		const long = await api('POST', '/logs', {
			token: member.token,
			body: { logs: [{ stack_trace: { exception: 'x'.repeat(2_001) } }] },
		})
		expect(long.status).toBe(400)
		expect(long.body.error_message).toContain('logs.0.stack_trace')
		const huge = await api('POST', '/logs', {
			token: member.token,
			rawBody: JSON.stringify({ logs: [{ stack_trace: { trace: 'y'.repeat(70_000) } }] }),
		})
		expect(huge.status).toBe(413)
		expect((await api('POST', '/logs', { body: { logs: [] } })).status).toBe(401)
	})

	test('30 requests a minute per member, then 429 with Retry-After', async () => {
		const sender = await newUser(community)
		const statuses: number[] = []
		for (let i = 0; i < 31; i++)
			statuses.push(
				(await api('POST', '/logs', { token: sender.token, body: { logs: [] } })).status,
			)
		expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
		const limited = await api('POST', '/logs', { token: sender.token, body: { logs: [] } })
		expect(limited.status).toBe(429)
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
		// Another member's budget is untouched.
		expect((await api('POST', '/logs', { token: member.token, body: { logs: [] } })).status).toBe(
			200,
		)
	})

	test('each report is one line of the log stream, with who sent it', async () => {
		const plaza = await spawnPlaza('api')
		try {
			const marker = `client-boom-${Date.now()}`
			const reply = await fetch(`http://127.0.0.1:${plaza.port}/logs`, {
				method: 'POST',
				headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
				body: JSON.stringify({ logs: [report(marker)] }),
			})
			expect(reply.status).toBe(200)
			const line = JSON.parse(await plaza.waitForLine((l) => l.includes(marker), 10_000))
			expect(line).toMatchObject({
				level: 40,
				msg: 'client log',
				user_uuid: member.uuid,
				community_id: community.communityId,
				client_log: { stack_trace: { exception: marker } },
			})
		} finally {
			await plaza.stop()
		}
	}, 30_000)
})

describe('POST /user/device/push without x-platform-code', () => {
	const platformOf = async (deviceId: string) =>
		(
			await sql`select platform from devices where community_id = ${community.communityId} and device_id = ${deviceId}`
		)[0]?.platform
	test('the platform comes from the user agent, else rt (web); never a 400', async () => {
		for (const [deviceId, agent, platform] of [
			['web-1', 'Mozilla/5.0 (Linux; Android 14) Chrome/120', 'rt'],
			['sdk-1', 'axios/1.7.2', 'rt'],
			['android-1', 'okhttp/4.12.0', 'an'],
			['ios-1', 'MyApp/3 CFNetwork/1490 Darwin/23.2.0', 'ios'],
			['flutter-1', 'Dart/3.2 (dart:io)', 'fl'],
		] as const) {
			const reply = await api('POST', '/user/device/push', {
				token: member.token,
				headers: { 'user-agent': agent, 'x-sdk-source': 'feed' },
				body: { token: `tok-${deviceId}`, device_id: deviceId },
			})
			expect(reply.status, agent).toBe(200)
			expect(await platformOf(deviceId), agent).toBe(platform)
		}
		// An explicit code still rules, and a wrong one is still a 400.
		const explicit = await api('POST', '/user/device/push', {
			token: member.token,
			headers: { 'user-agent': 'okhttp/4', 'x-platform-code': 'ios', 'x-device-id': 'x-1' },
			body: { token: 'tok' },
		})
		expect(explicit.status).toBe(200)
		expect(await platformOf('x-1')).toBe('ios')
		const wrong = await api('POST', '/user/device/push', {
			token: member.token,
			headers: { 'x-platform-code': 'windows', 'x-device-id': 'x-2' },
			body: { token: 'tok' },
		})
		expect(wrong.status).toBe(400)
		// GET lists the caller's devices, without their tokens.
		const mine = await api('GET', '/user/device/push', { token: member.token })
		expect(mine.status).toBe(200)
		expect(mine.body.data.devices.map((d: { device_id: string }) => d.device_id).sort()).toEqual(
			['android-1', 'flutter-1', 'ios-1', 'sdk-1', 'web-1', 'x-1'].sort(),
		)
		expect(JSON.stringify(mine.body)).not.toContain('tok-')
	})
})
