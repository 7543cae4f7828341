import { beforeAll, describe, expect, test } from 'bun:test'
import { config } from '../../src/config'
import { newCommunity, newUser, type TestCommunity } from '../support/community'
import { api } from '../support/http'
import { waitFor } from '../support/wait'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('operations')
})

/** Waits for the latency observation, recorded after the response is sent. */
function metricsText(expected: string): Promise<string> {
	return waitFor(
		async () => {
			const text = String((await api('GET', '/metrics')).body)
			return text.includes(expected) && text
		},
		{ what: `/metrics to show ${expected}` },
	)
}

describe('health, readiness, metrics, openapi', () => {
	test('/health and /ready answer 200 when Postgres and Redis are up', async () => {
		expect((await api('GET', '/health')).body).toMatchObject({ success: true, status: 'ok' })
		const ready = await api('GET', '/ready')
		expect(ready.status).toBe(200)
		expect(ready.body).toMatchObject({ success: true, postgres: true, redis: true })
	})

	test('/metrics exposes request latency histograms by route and status', async () => {
		await api('GET', '/community/member/role')
		const text = await metricsText('route="/community/member/role",status="401"')
		expect(text).toContain('# TYPE http_request_duration_seconds histogram')
		expect(text).toMatch(
			/http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/community\/member\/role",status="401"\} \d+/,
		)
		expect(text).toMatch(
			/http_request_duration_seconds_count\{method="GET",route="\/community\/member\/role",status="401"\} [1-9]/,
		)
	})

	test('/openapi lists the routes with their schemas', async () => {
		const reply = await api('GET', '/openapi/json')
		expect(reply.status).toBe(200)
		const paths = reply.body.paths
		for (const path of [
			'/health',
			'/ready',
			'/metrics',
			'/sdk/initiate',
			'/user/refresh',
			'/user/logout',
			'/otp/generate',
			'/otp/verify',
			'/moderation/rights',
			'/community/member/role',
			'/sdk/project',
		]) {
			expect(paths[path], path).toBeDefined()
		}
		expect(paths['/sdk/project'].put).toBeDefined()
		expect(JSON.stringify(paths['/moderation/rights'].patch)).toContain('is_cm')
		expect(JSON.stringify(paths['/otp/verify'].get)).toContain('mobile_no')
		// Answers are documented from the routes' response schemas.
		const answer = (path: string, method: string) =>
			JSON.stringify(paths[path][method].responses['200'].content['application/json'].schema)
		expect(answer('/webhook', 'post')).toContain('"secret"')
		expect(answer('/webhook/{webhook_id}/deliveries', 'get')).toContain('"duration_ms"')
		expect(answer('/sdk/initiate', 'post')).toContain('"access_token"')
		expect(answer('/user/refresh', 'post')).toContain('"refresh_token"')
		expect(answer('/community/settings', 'get')).toContain('"community_settings"')
		// Request bodies too, though every body goes through one function parser.
		const body = (path: string, method: string) =>
			JSON.stringify(paths[path][method].requestBody?.content?.['application/json']?.schema)
		expect(body('/feed/post', 'post')).toContain('"attachments"')
		expect(body('/feed/post/{post_id}/comment', 'post')).toContain('"text"')
		expect(body('/webhook', 'post')).toContain('"url"')
		const ui = await api('GET', '/openapi')
		expect(ui.status).toBe(200)
	})

	test('unknown routes are 404 in the envelope', async () => {
		const reply = await api('GET', '/no/such/route')
		expect(reply.status).toBe(404)
		expect(reply.body).toEqual({ success: false, error_message: 'Route not found' })
	})
})

describe('rate limits', () => {
	test('per user: 429 with Retry-After once the minute budget is spent', async () => {
		const user = await newUser(community)
		const other = await newUser(community)
		const saved = config.RATE_LIMIT_PER_MINUTE
		config.RATE_LIMIT_PER_MINUTE = 5
		try {
			const replies = []
			// Twelve calls: more than five fall in one minute window even across a boundary.
			for (let i = 0; i < 12; i++)
				replies.push(await api('GET', '/community/member/role', { token: user.token }))
			const limited = replies.find((r) => r.status === 429)
			expect(limited).toBeDefined()
			expect(limited?.body).toEqual({
				success: false,
				error_message: 'Too many requests, slow down',
			})
			const retryAfter = Number(limited?.headers.get('retry-after'))
			expect(retryAfter).toBeGreaterThanOrEqual(1)
			expect(retryAfter).toBeLessThanOrEqual(60)
			// Another user is not affected.
			expect((await api('GET', '/community/member/role', { token: other.token })).status).toBe(200)
		} finally {
			config.RATE_LIMIT_PER_MINUTE = saved
		}
	})

	test('per IP: 429 with Retry-After, other addresses unaffected; /health is never limited', async () => {
		const saved = config.RATE_LIMIT_IP_PER_MINUTE
		const ip = `10.77.${process.pid % 250}.${Date.now() % 250}`
		const member = await newUser(community)
		config.RATE_LIMIT_IP_PER_MINUTE = 5
		try {
			const statuses: number[] = []
			let retryAfter: string | null = null
			for (let i = 0; i < 12; i++) {
				const reply = await api('POST', '/sdk/initiate', {
					headers: { 'x-forwarded-for': ip },
					body: { user_unique_id: 'x' },
				})
				statuses.push(reply.status)
				if (reply.status === 429) retryAfter ??= reply.headers.get('retry-after')
			}
			expect(statuses).toContain(429)
			expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
			// The limit holds on every kind of route: with a token and no body, and with neither.
			const fromIp = { 'x-forwarded-for': ip }
			expect(
				(await api('GET', '/feed/universal', { token: member.token, headers: fromIp })).status,
			).toBe(429)
			expect((await api('GET', '/openapi', { headers: fromIp })).status).toBe(429)
			expect((await api('GET', '/health', { headers: { 'x-forwarded-for': ip } })).status).toBe(200)
			const elsewhere = await api('POST', '/sdk/initiate', {
				headers: { 'x-forwarded-for': `${ip}9` },
				body: { user_unique_id: 'x' },
			})
			expect(elsewhere.status).toBe(401)
		} finally {
			config.RATE_LIMIT_IP_PER_MINUTE = saved
		}
	})

	test('per IP: entries a client adds in front of x-forwarded-for do not escape the limit', async () => {
		const saved = { limit: config.RATE_LIMIT_IP_PER_MINUTE, hops: config.TRUST_PROXY_HOPS }
		const ip = `10.78.${process.pid % 250}.${Date.now() % 250}`
		config.RATE_LIMIT_IP_PER_MINUTE = 5
		config.TRUST_PROXY_HOPS = 1
		try {
			const statuses: number[] = []
			for (let i = 0; i < 12; i++) {
				// The client forges a new address each time; the proxy appends the real one.
				const headers = { 'x-forwarded-for': `203.0.113.${i}, ${ip}` }
				statuses.push(
					(await api('POST', '/sdk/initiate', { headers, body: { user_unique_id: 'x' } })).status,
				)
			}
			expect(statuses).toContain(429)
			// With no trusted proxy the header is ignored altogether: fresh addresses do not help.
			config.TRUST_PROXY_HOPS = 0
			const direct: number[] = []
			for (let i = 0; i < 12; i++) {
				const headers = { 'x-forwarded-for': `198.51.100.${Date.now() % 200}${i}` }
				direct.push(
					(await api('POST', '/sdk/initiate', { headers, body: { user_unique_id: 'x' } })).status,
				)
			}
			expect(direct).toContain(429)
		} finally {
			config.RATE_LIMIT_IP_PER_MINUTE = saved.limit
			config.TRUST_PROXY_HOPS = saved.hops
		}
	})
})
