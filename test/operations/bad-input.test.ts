// Bad input rejected by Elysia itself (query and path validation, body parsing) comes
// back as 400 in the envelope with a message naming the field, never 500 and never the
// validator's raw JSON.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { api } from '../support/http'

let user: TestUser

beforeAll(async () => {
	user = await newUser(await newCommunity('bad-input'))
})

async function expect400(method: string, path: string, message: string | RegExp, options = {}) {
	const reply = await api(method, path, { token: user.token, ...options })
	expect(reply.status).toBe(400)
	expect(reply.body.success).toBe(false)
	expect(reply.body.error_message).not.toContain('{')
	if (typeof message === 'string') expect(reply.body.error_message).toBe(message)
	else expect(reply.body.error_message).toMatch(message)
}

describe('query and path validation', () => {
	test('a query number that is not one names the field and the kind', async () => {
		await expect400(
			'GET',
			'/feed/universal?page=abc',
			'Invalid query: page must be an integer (got "abc")',
		)
		await expect400(
			'GET',
			'/feed/universal?page=1.5',
			'Invalid query: page must be an integer (got "1.5")',
		)
		await expect400(
			'GET',
			'/feed/post/x/like?page_size=abc',
			'Invalid query: page_size must be an integer (got "abc")',
		)
	})

	test('a query number out of range names the field though the validator does not', async () => {
		await expect400(
			'GET',
			'/feed/post/x/like?page_size=-3',
			'Invalid query: page_size Expected integer to be greater or equal to 1 (got -3)',
		)
		await expect400('GET', '/feed/universal?page=0', /^Invalid query: page Expected integer/)
	})

	test('a query boolean that is not one', async () => {
		await expect400(
			'GET',
			'/feed/personalised?should_reorder=maybe',
			'Invalid query: should_reorder must be true or false (got "maybe")',
		)
	})

	test('a path parameter too long', async () => {
		await expect400(
			'GET',
			`/feed/post/${'x'.repeat(101)}/like`,
			/^Invalid params: post_id Expected string length less or equal to 100/,
		)
	})
})

describe('request bodies', () => {
	test('a body that is not JSON is 400 whatever its content-type says', async () => {
		const message = (type: string) =>
			`Request body must be JSON (Content-Type: application/json), got ${type}`
		await expect400('POST', '/feed/post', message('text/plain'), {
			rawBody: 'hello',
			headers: { 'content-type': 'text/plain' },
		})
		await expect400('POST', '/feed/post/seen', message('application/xml'), {
			rawBody: '<post_ids/>',
			headers: { 'content-type': 'application/xml' },
		})
		await expect400('POST', '/feed/post', 'Malformed request body', { rawBody: '{"text":' })
	})

	test('JSON sent as text/plain (sendBeacon) is read as JSON', async () => {
		const reply = await api('POST', '/feed/post', {
			token: user.token,
			rawBody: JSON.stringify({ text: 'beacon' }),
			headers: { 'content-type': 'text/plain;charset=UTF-8' },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.post.text).toBe('beacon')
	})

	test('a body field of the wrong type names the field', async () => {
		await expect400('POST', '/feed/post/seen', /^Invalid body: post_ids /, {
			body: { post_ids: 'x' },
		})
	})
})
