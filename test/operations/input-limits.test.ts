// Issue 15, findings 2 and 3: authentication comes before any schema; bodies are
// bounded in size per route and in depth; NUL characters, lone surrogates and numbers
// no column can hold are a 400 naming the field. Each refusal has a positive control.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { enableConnections } from '../support/connections'
import { api } from '../support/http'

let community: TestCommunity
let member: TestUser
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('input-limits')
	await enableConnections(community)
	member = await newUser(community)
	cm = await newUser(community, { role: 'cm' })
})

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
const settingsWith = (value: string) =>
	`{"community_settings":[{"setting_type":"user_connection","enabled":true,"x":${value}}]}`

function expectError(reply: { status: number; body: any }, status: number, message: RegExp) {
	expect(reply.status).toBe(status)
	expect(reply.body.success).toBe(false)
	expect(reply.body.error_message).toMatch(message)
}

describe('authentication before bodies are validated (finding 2)', () => {
	const deep = nested(24_500) // the 49 KB body of the report

	test('a deep body without a token is 401, with a member token 403, on PUT /sdk/project', async () => {
		const options = { rawBody: deep, headers: { 'x-platform-type': 'dashboard' } }
		expectError(await api('PUT', '/sdk/project', options), 401, /access token/)
		const asMember = await api('PUT', '/sdk/project', {
			...options,
			token: member.token,
			apiKey: community.apiKey,
		})
		expectError(asMember, 403, /Authorized/)
	})

	test('a member gets 403 before 400 for an invalid body (PUT /sdk/project, PUT /community/settings)', async () => {
		const bad = { token: member.token, apiKey: community.apiKey, body: { nonsense: 1 } }
		const headers = { 'x-platform-type': 'dashboard' }
		expectError(await api('PUT', '/sdk/project', { ...bad, headers }), 403, /Authorized/)
		expectError(await api('PUT', '/community/settings', bad), 403, /CM|Authorized/)
		// Positive control: the same body from a CM reaches the schema and is a 400.
		expectError(await api('PUT', '/community/settings', { ...bad, token: cm.token }), 400, /./)
	})

	test('past authentication, depth over 32 is refused before the schema; 32 passes the check', async () => {
		const tooDeep = await api('PUT', '/community/settings', {
			token: cm.token,
			rawBody: settingsWith(nested(32)),
		})
		expectError(tooDeep, 400, /nested deeper than 32 levels/)
		const deepest = await api('PUT', '/community/settings', {
			token: cm.token,
			rawBody: settingsWith(nested(29)), // 3 levels of envelope + 29 = 32
		})
		expect(deepest.status).toBe(200)
		expectError(
			await api('PUT', '/community/settings', { token: cm.token, rawBody: deep }),
			400,
			/nested deeper/,
		)
	})

	test('brackets inside strings do not count as depth', async () => {
		const reply = await api('POST', '/feed/post', {
			token: member.token,
			body: { text: `${'['.repeat(100)} and \\" ${'{'.repeat(100)}` },
		})
		expect(reply.status).toBe(200)
	})
})

describe('body size per route (finding 2)', () => {
	const initiate = (size: number, headers: Record<string, string> = {}) =>
		api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			headers,
			body: { user_unique_id: `size-${size}`, user_name: 'x'.repeat(size) },
		})

	test('initiate takes 8 KB: 9 KB is 413 in the envelope, a small body passes', async () => {
		expectError(await initiate(9000), 413, /larger than 8192 bytes/)
		// user_name is limited to 200 characters by its schema: a 150-character one passes.
		expect((await initiate(150)).status).toBe(200)
	})

	test('a chunked body (no content-length) is cut at the limit too', async () => {
		const { app } = await import('../../src/app')
		const chunk = new TextEncoder().encode(' '.repeat(4096))
		const body = new ReadableStream({
			start(controller) {
				for (let i = 0; i < 4; i++) controller.enqueue(chunk)
				controller.enqueue(new TextEncoder().encode('{"user_unique_id":"chunked"}'))
				controller.close()
			},
		})
		const response = await app.handle(
			new Request('http://localhost/sdk/initiate', {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-api-key': community.apiKey },
				body,
			}),
		)
		expect(response.status).toBe(413)
		expect(await response.json()).toMatchObject({ success: false })
	})

	// Every route with a limit of its own (lib/input-limits.ts, docs/security.md): one
	// byte over is 413 naming that limit; a body of exactly the limit is not refused for size.
	const ownLimits: [string, string, number][] = [
		['POST', '/user/refresh', 4 * 1024],
		['POST', '/user/logout', 4 * 1024],
		['PUT', '/sdk/project', 64 * 1024],
		['PUT', '/community/settings', 64 * 1024],
		['PUT', '/feed/post/abc/like', 1024],
		['POST', '/feed/post/seen', 64 * 1024],
		['POST', '/feed/user/activity', 8 * 1024 * 1024],
		['POST', '/user/device/push', 8 * 1024],
		['POST', '/logs', 64 * 1024],
	]
	const padded = (bytes: number) => ({
		rawBody: `{"pad":"${'a'.repeat(bytes - 10)}"}`,
		headers: { 'content-length': String(bytes) },
	})
	for (const [method, path, limit] of ownLimits)
		test(`${method} ${path} takes ${limit} bytes: one more is 413, exactly ${limit} is not`, async () => {
			// A user of its own: the logout at the limit ends its session.
			const caller = await newUser(community, { role: 'cm' })
			const over = await api(method, path, { token: caller.token, ...padded(limit + 1) })
			expectError(over, 413, new RegExp(`larger than ${limit} bytes`))
			const at = await api(method, path, { token: caller.token, ...padded(limit) })
			expect(at.status).not.toBe(413)
			expect(at.status).toBeLessThan(500)
		})

	test('a post of 300 KB is 413; the default limit is 256 KB', async () => {
		const reply = await api('POST', '/feed/post', {
			token: member.token,
			body: {
				text: 'x',
				attachments: [{ attachment_type: 1, attachment_meta: { a: 'y'.repeat(300_000) } }],
			},
		})
		expectError(reply, 413, /larger than 262144 bytes/)
	})
})

describe('characters and numbers no column can hold (finding 3)', () => {
	test('NUL in a JSON body, a form body, a query value and a path id names the field', async () => {
		expectError(
			await api('POST', '/feed/post', { token: member.token, body: { text: 'a\u0000b' } }),
			400,
			/^Invalid body: text contains a NUL character$/,
		)
		expectError(
			await api('POST', '/sdk/initiate', {
				rawBody: `user_unique_id=a%00b&apikey=${community.apiKey}`,
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
			}),
			400,
			/^Invalid body: user_unique_id contains a NUL character$/,
		)
		expectError(
			await api('GET', '/feed/personalised?topics=%00', { token: member.token }),
			400,
			/^Invalid query: topics contains a NUL character$/,
		)
		expectError(
			await api('PUT', '/feed/post/a%00b/like', { token: member.token }),
			400,
			/^Invalid path: post_id contains a NUL character$/,
		)
	})

	test('positive controls: the same routes with clean values', async () => {
		const form = await api('POST', '/sdk/initiate', {
			rawBody: `user_unique_id=form-user&apikey=${community.apiKey}`,
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
		})
		expect(form.status).toBe(200)
		expect((await api('GET', '/feed/personalised?topics=a', { token: member.token })).status).toBe(
			200,
		)
		expect((await api('PUT', '/feed/post/ab/like', { token: member.token })).status).toBe(404)
	})

	test('a lone surrogate in an attachment_meta key or value is 400; a paired one is stored intact', async () => {
		const post = (meta: string) =>
			api('POST', '/feed/post', {
				token: member.token,
				rawBody: `{"text":"t","attachments":[{"attachment_type":1,"attachment_meta":${meta}}]}`,
			})
		expectError(
			await post('{"title":"\\ud800"}'),
			400,
			/attachments\.0\.attachment_meta\.title contains a lone surrogate/,
		)
		expectError(await post('{"\\udc00":"x"}'), 400, /field name contains a lone surrogate/)
		const paired = await post('{"title":"\\ud83d\\ude00"}')
		expect(paired.status).toBe(200)
		expect(paired.body.data.post.attachments[0].attachment_meta.title).toBe('😀')
	})

	test('page=1e18 on connection, block and feed lists is 400; page=2 is fine', async () => {
		const lists = [
			`/community/member/${member.uuid}/connection`,
			`/user/${member.uuid}/block`,
			'/feed/connection',
			'/feed/personalised',
		]
		for (const path of lists) {
			expectError(
				await api('GET', `${path}?page=1e18`, { token: member.token }),
				400,
				/^Invalid query: page /,
			)
			expect((await api('GET', `${path}?page=2`, { token: member.token })).status).toBe(200)
		}
	})

	test('min_posts=1.5 on GET /feed/topic is 400; min_posts=1 is fine', async () => {
		expectError(
			await api('GET', '/feed/topic?min_posts=1.5', { token: member.token }),
			400,
			/min_posts must be an integer/,
		)
		expect((await api('GET', '/feed/topic?min_posts=1', { token: member.token })).status).toBe(200)
	})

	test('a body number beyond 2^53 is 400 naming it', async () => {
		expectError(
			await api('POST', '/feed/post', {
				token: member.token,
				rawBody: '{"text":"x","created_at":1e300}',
			}),
			400,
			/^Invalid body: created_at is out of range/,
		)
	})
})
