// Token checks kept in each process for a second (issue 40, modules/auth/token-states.ts)
// and rate limits counted in the process and sent in batches (lib/rate-limit.ts), seen
// from two api processes sharing Postgres and Redis: a revocation made through one
// stops a token the other has just passed within a second, and a user's requests are
// counted against one limit whichever process takes them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, type TestCommunity } from '../support/community'
import { type PlazaProcess, startPlazaProcess } from '../support/fleet'

const LIMIT = 40
let community: TestCommunity
let a: PlazaProcess
let b: PlazaProcess

beforeAll(async () => {
	community = await newCommunity('revocation-processes')
	const env = { RATE_LIMIT_PER_MINUTE: String(LIMIT) }
	;[a, b] = await Promise.all([
		startPlazaProcess('a', 'api', env),
		startPlazaProcess('b', 'api', env),
	])
}, 90_000)

afterAll(async () => {
	await Promise.all([a?.stop(), b?.stop()])
})

async function call(p: PlazaProcess, method: string, path: string, init: RequestInit = {}) {
	const reply = await fetch(`http://127.0.0.1:${p.port}${path}`, { method, ...init })
	return { status: reply.status, body: (await reply.json().catch(() => null)) as any }
}

const json = (body: unknown, token?: string): RequestInit => ({
	headers: {
		'content-type': 'application/json',
		...(token ? { authorization: `Bearer ${token}` } : {}),
	},
	body: JSON.stringify(body),
})

let counter = 0
async function login(through: PlazaProcess) {
	const reply = await call(through, 'POST', '/sdk/initiate', {
		headers: { 'content-type': 'application/json', 'x-api-key': community.apiKey },
		body: JSON.stringify({ user_unique_id: `proc-${Date.now()}-${counter++}` }),
	})
	expect(reply.status).toBe(200)
	return reply.body.data as { access_token: string; refresh_token: string }
}

const role = (p: PlazaProcess, token: string) =>
	call(p, 'GET', '/community/member/role', { headers: { authorization: `Bearer ${token}` } })

/**
 * Ms until `p` refuses the token as revoked (polled every 50 ms, at most 2 s: fewer
 * requests than the user's limit, so a 429 never hides the answer).
 */
async function msUntilRefused(p: PlazaProcess, token: string): Promise<number> {
	const started = performance.now()
	while (performance.now() - started < 2000) {
		const reply = await role(p, token)
		if (reply.status === 401) {
			expect(reply.body.error_message).toBe('Access token revoked')
			return performance.now() - started
		}
		expect(reply.status).toBe(200)
		await Bun.sleep(50)
	}
	return Number.POSITIVE_INFINITY
}

describe('token checks kept per process', () => {
	test('a logout through one process stops the token in the other within a second', async () => {
		const session = await login(a)
		// Positive control: both pass the token (b now keeps its answer).
		expect((await role(b, session.access_token)).status).toBe(200)
		expect((await role(a, session.access_token)).status).toBe(200)
		const out = await call(
			a,
			'POST',
			'/user/logout',
			json({ refresh_token: session.refresh_token }, session.access_token),
		)
		expect(out.status).toBe(200)
		// The process that revoked refuses at once.
		expect((await role(a, session.access_token)).status).toBe(401)
		expect(await msUntilRefused(b, session.access_token)).toBeLessThan(1300)
	})

	test('a refresh-token reuse through one process revokes the family in the other within a second', async () => {
		const session = await login(a)
		const rotated = await call(a, 'POST', '/user/refresh', {
			headers: { authorization: session.refresh_token },
		})
		expect(rotated.status).toBe(200)
		const fresh = rotated.body.data.access_token as string
		expect((await role(b, fresh)).status).toBe(200)
		const reused = await call(a, 'POST', '/user/refresh', {
			headers: { authorization: session.refresh_token },
		})
		expect(reused.status).toBe(401)
		expect(await msUntilRefused(b, fresh)).toBeLessThan(1300)
	})

	test('a logout of every login through one process stops them all in the other', async () => {
		const session = await login(a)
		expect((await role(b, session.access_token)).status).toBe(200)
		expect((await call(a, 'POST', '/user/logout', json({}, session.access_token))).status).toBe(200)
		expect(await msUntilRefused(b, session.access_token)).toBeLessThan(1300)
	})
})

describe('rate limits counted across processes', () => {
	test("one user's requests through two processes meet one limit", async () => {
		// Not across a minute boundary (the windows are per minute).
		const intoMinute = Date.now() % 60_000
		if (intoMinute > 50_000) await Bun.sleep(60_000 - intoMinute + 50)
		const session = await login(a)
		const statuses: number[] = []
		for (let i = 0; i < 25; i++) statuses.push((await role(a, session.access_token)).status)
		expect(statuses.every((s) => s === 200)).toBe(true)
		// Once a's counts are sent (every 100 ms), b learns them with its own first batch.
		await Bun.sleep(300)
		statuses.push((await role(b, session.access_token)).status)
		await Bun.sleep(300)
		for (let i = 0; i < 30; i++) statuses.push((await role(b, session.access_token)).status)
		const passed = statuses.filter((s) => s === 200).length
		expect(statuses).toContain(429)
		// Exactly the limit: b counted a's 25 before its 15th request.
		expect(passed).toBe(LIMIT)
	}, 30_000)
})
