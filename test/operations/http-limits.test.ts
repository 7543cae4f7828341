// Oversized heads and bodies sent over a real socket to a real plaza process: Bun
// answers a head over its own limit itself (a bare 431, no hook), so plaza raises that
// limit and enforces its own first. Both answers must be the JSON envelope.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_HEADER_BYTES, SERVER_MAX_HEADER_BYTES } from '../../src/lib/input-limits'
import { newCommunity, type TestCommunity } from '../support/community'
import { type Plaza, spawnPlaza } from '../support/process'

let plaza: Plaza
let community: TestCommunity
const url = (path: string) => `http://127.0.0.1:${plaza.port}${path}`

beforeAll(async () => {
	community = await newCommunity('http-limits')
	plaza = await spawnPlaza('api')
})
afterAll(async () => {
	expect(await plaza.stop()).toBe(0)
})

const read = async (reply: Response) => ({
	status: reply.status,
	type: reply.headers.get('content-type'),
	text: await reply.text(),
})

describe('request heads', () => {
	test('a 40 KB header is a 431 in the envelope; one under the limit passes', async () => {
		const big = await read(
			await fetch(url('/health'), { headers: { 'x-big': 'a'.repeat(40 * 1024) } }),
		)
		expect(big.status).toBe(431)
		expect(big.type).toContain('application/json')
		const body = JSON.parse(big.text)
		expect(body.success).toBe(false)
		expect(body.error_message).toContain(`larger than ${MAX_HEADER_BYTES} bytes`)

		// Just over our limit: still ours (Bun's default, 16 KB, would have answered bare).
		const over = await fetch(url('/health'), {
			headers: { 'x-big': 'a'.repeat(MAX_HEADER_BYTES) },
		})
		expect(over.status).toBe(431)
		expect(((await over.json()) as any).success).toBe(false)

		const fine = await fetch(url('/health'), {
			headers: { 'x-big': 'a'.repeat(MAX_HEADER_BYTES - 1024) },
		})
		expect(fine.status).toBe(200)
	})

	test("past Bun's raised ceiling Bun answers alone (the documented edge)", async () => {
		const huge = await fetch(url('/health'), {
			headers: { 'x-big': 'a'.repeat(SERVER_MAX_HEADER_BYTES + 1024) },
		})
		expect(huge.status).toBe(431)
	})
})

describe('request bodies over the route limit', () => {
	const initiate = (body: RequestInit['body'], headers: Record<string, string> = {}) =>
		fetch(url('/sdk/initiate'), {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-api-key': community.apiKey, ...headers },
			body,
		})

	test('declared length over 8 KB on /sdk/initiate: 413 in the envelope, before reading', async () => {
		const body = JSON.stringify({ user_unique_id: 'u-big', user_name: 'x'.repeat(9 * 1024) })
		const reply = await read(await initiate(body))
		expect(reply.status).toBe(413)
		expect(reply.type).toContain('application/json')
		expect(JSON.parse(reply.text)).toEqual({
			success: false,
			error_message: 'Request body larger than 8192 bytes',
		})
	})

	test('a chunked body (no length) over the limit: 413 in the envelope while reading', async () => {
		const chunk = new TextEncoder().encode(
			`{"user_unique_id":"u-chunked","user_name":"${'x'.repeat(6000)}`,
		)
		const stream = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(chunk)
				controller.enqueue(new TextEncoder().encode(`${'y'.repeat(6000)}"}`))
				controller.close()
			},
		})
		const reply = await read(await initiate(stream as unknown as RequestInit['body']))
		expect(reply.status).toBe(413)
		expect(JSON.parse(reply.text).success).toBe(false)
	})

	test('positive control: the same route under its limit answers 200', async () => {
		const reply = await initiate(JSON.stringify({ user_unique_id: 'u-small', user_name: 'Small' }))
		expect(reply.status).toBe(200)
	})
})
