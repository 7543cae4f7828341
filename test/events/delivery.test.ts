// Delivery through a real local receiver with the engine running in this process:
// envelope and signatures, retries on schedule for each kind of failure, deactivation
// after 1 + 3 failed attempts, reactivation, the attempt log and replay.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { config } from '../../src/config'
import { startDelivery } from '../../src/webhooks/engine'
import { createPost } from '../support/content'
import { api } from '../support/http'
import { type Receipt, type Receiver, startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'
import { newProfile, register, setup } from '../support/webhooks'

const schedule = config.webhookRetryScheduleMs
const timeout = config.WEBHOOK_TIMEOUT_MS
let stopEngine: () => Promise<void>
let receiver: Receiver
// Per-path behaviour of the receiver; tests switch a path to 200 to "fix" it.
const behaviour = new Map<string, 'ok' | '500' | '201' | 'redirect' | 'slow'>()

beforeAll(() => {
	stopEngine = startDelivery({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })
	receiver = startReceiver(async (r) => {
		switch (behaviour.get(r.path) ?? 'ok') {
			case '500':
				return new Response('boom', { status: 500 })
			case '201':
				return new Response('created', { status: 201 })
			case 'redirect':
				return new Response(null, {
					status: 302,
					headers: { location: `${receiver.url.replace('/hook', '')}/ok` },
				})
			case 'slow':
				await Bun.sleep(timeout + 300)
				return new Response('late')
			default:
				return new Response('ok')
		}
	})
})

afterAll(async () => {
	await stopEngine()
	receiver.stop()
})

const at = (path: string) => receiver.url.replace('/hook', path)
const receiptsAt = (path: string) => receiver.receipts.filter((r) => r.path === path)

describe('delivery', () => {
	test('POSTs the envelope, signed per Standard Webhooks and with x-signature', async () => {
		const s = await setup('wh-sign')
		const hook = await register(s, at('/sign'))
		const before = Date.now()
		const uuid = await newProfile(s)
		await waitFor(() => receiptsAt('/sign').length === 1)
		const [r] = receiptsAt('/sign')
		expect(Object.keys(r.json)).toEqual(['id', 'created_at', 'event', 'source', 'data'])
		expect(r.json).toMatchObject({ id: r.id, event: 'profile.created', source: 'feed' })
		expect(r.json.data.user.uuid).toBe(uuid)
		// Made while the request ran, sent before it was received (no clock tolerance needed).
		expect(r.json.created_at).toBeGreaterThanOrEqual(before)
		expect(r.json.created_at).toBeLessThanOrEqual(r.at)
		const headers = Object.fromEntries(r.headers)
		expect(new Webhook(hook.secret).verify(r.body, headers)).toEqual(r.json)
		expect(() => new Webhook(hook.secret).verify(`${r.body} `, headers)).toThrow()
		const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64')
		expect(headers['x-signature']).toBe(createHmac('sha256', key).update(r.body).digest('hex'))
		// The attempt's time in seconds: not before the event, not after it arrived.
		const timestamp = Number(headers['webhook-timestamp'])
		expect(timestamp).toBeGreaterThanOrEqual(Math.floor(r.json.created_at / 1000))
		expect(timestamp).toBeLessThanOrEqual(Math.ceil(r.at / 1000))
	})

	test('500, 201, redirect and too slow: retried on schedule, then inactive after 1 + 3 failures; reactivation resumes', async () => {
		const s = await setup('wh-fail')
		const paths = {
			'/f500': '500',
			'/f201': '201',
			'/fredirect': 'redirect',
			'/fslow': 'slow',
		} as const
		const hooks: Record<string, { id: string }> = {}
		for (const [path, kind] of Object.entries(paths)) {
			behaviour.set(path, kind)
			hooks[path] = await register(s, at(path))
		}
		// The positive control: an answering webhook of the same type gets every event, so
		// "the inactive ones got nothing" is checked once delivery has shown it runs.
		await register(s, at('/fcontrol'))
		const eventOwner = await newProfile(s)
		const paths4 = Object.keys(paths)
		await waitFor(() => paths4.every((p) => receiptsAt(p).length >= 4), {
			timeoutMs: 4 * (timeout + 400) + schedule.reduce((a, b) => a + b) + 3000,
		})
		// The last slow attempt fails only when its timeout passes.
		const inactive = async (path: string) =>
			!(await api('GET', `/webhook/${hooks[path].id}`, { token: s.cm.token })).body.data.webhook
				.is_active
		await waitFor(async () => (await Promise.all(paths4.map(inactive))).every(Boolean), {
			timeoutMs: timeout + 2000,
		})
		for (const path of paths4) {
			const got = receiptsAt(path)
			expect(
				got.map((r) => r.attempt),
				path,
			).toEqual([1, 2, 3, 4])
			expect(new Set(got.map((r) => r.id)).size, path).toBe(1)
			expect(got[0].json.data.user.uuid).toBe(eventOwner)
			// Each retry waits its delay after the failed attempt ended (slow ones end at the
			// timeout). How much later it comes depends on the machine's load; that lateness is
			// measured by scripts/bench/webhooks.ts, not asserted here.
			const attemptTime = path === '/fslow' ? timeout : 0
			for (let i = 1; i < 4; i++) {
				const gap = got[i].at - got[i - 1].at
				expect(gap, `${path} retry ${i}`).toBeGreaterThanOrEqual(schedule[i - 1] + attemptTime - 5)
			}
			const read = await api('GET', `/webhook/${hooks[path].id}`, { token: s.cm.token })
			expect(read.body.data.webhook.is_active, path).toBe(false)
			expect(read.body.data.webhook.deactivated_at).toBeNumber()
			expect(read.body.data.webhook.deactivation_reason).toContain('failed 4 times')
		}
		expect(receiptsAt('/fredirect').length).toBe(4)
		expect(receiver.receipts.filter((r) => r.path === '/ok')).toHaveLength(0)

		// The attempt log has all four with status codes, durations and errors.
		const log500 = await api('GET', `/webhook/${hooks['/f500'].id}/deliveries?status=failed`, {
			token: s.cm.token,
		})
		expect(log500.body.data.total_count).toBe(4)
		expect(log500.body.data.deliveries.map((d: { attempt: number }) => d.attempt)).toEqual([
			4, 3, 2, 1,
		])
		expect(log500.body.data.deliveries[0]).toMatchObject({
			event: 'profile.created',
			status: 'failed',
			status_code: 500,
			error: 'HTTP 500',
		})
		expect(log500.body.data.deliveries[0].duration_ms).toBeNumber()
		const logSlow = await api('GET', `/webhook/${hooks['/fslow'].id}/deliveries`, {
			token: s.cm.token,
		})
		expect(logSlow.body.data.deliveries[0]).toMatchObject({
			status_code: null,
			error: `Timed out after ${timeout} ms`,
		})
		const logRedirect = await api(
			'GET',
			`/webhook/${hooks['/fredirect'].id}/deliveries?page_size=2&page=2`,
			{ token: s.cm.token },
		)
		expect(logRedirect.body.data.total_count).toBe(4)
		expect(logRedirect.body.data.deliveries.map((d: { attempt: number }) => d.attempt)).toEqual([
			2, 1,
		])
		expect(logRedirect.body.data.deliveries[0].status_code).toBe(302)

		// Inactive: a new event is not sent (no delivery is even recorded for them).
		const unsent = await newProfile(s)
		await waitFor(() => receiptsAt('/fcontrol').some((r) => r.json.data.user.uuid === unsent))
		await Bun.sleep(schedule[0] * 3)
		for (const path of paths4) expect(receiptsAt(path).length, path).toBe(4)
		for (const path of paths4) {
			const log = await api('GET', `/webhook/${hooks[path].id}/deliveries`, { token: s.cm.token })
			expect(log.body.data.total_count, path).toBe(4)
		}

		// Reactivated and fixed: the next event is delivered once, at attempt 1.
		behaviour.set('/f500', 'ok')
		const on = await api('PATCH', `/webhook/${hooks['/f500'].id}`, {
			token: s.cm.token,
			body: { is_active: true },
		})
		expect(on.body.data.webhook).toMatchObject({ is_active: true, deactivation_reason: null })
		const resumed = await newProfile(s)
		await waitFor(() => receiptsAt('/f500').length === 5)
		expect(receiptsAt('/f500')[4].attempt).toBe(1)
		expect(receiptsAt('/f500')[4].id).not.toBe(receiptsAt('/f500')[0].id)
		await waitFor(() => receiptsAt('/fcontrol').some((r) => r.json.data.user.uuid === resumed))
		await Bun.sleep(300)
		expect(receiptsAt('/fslow').length).toBe(4)
		expect(receiptsAt('/fcontrol').map((r) => r.json.data.user.uuid)).toEqual([
			eventOwner,
			unsent,
			resumed,
		])
	}, 30_000)

	test('a receiver that recovers gets the retry; the log shows failed then delivered', async () => {
		const s = await setup('wh-recover')
		behaviour.set('/recover', '500')
		const hook = await register(s, at('/recover'))
		await newProfile(s)
		await waitFor(() => receiptsAt('/recover').length === 1)
		behaviour.set('/recover', 'ok')
		await waitFor(() => receiptsAt('/recover').length === 2)
		// The receiver answers before the worker records the outcome; wait for the record.
		const logOf = () => api('GET', `/webhook/${hook.id}/deliveries`, { token: s.cm.token })
		await waitFor(async () => (await logOf()).body.data.deliveries[0].status === 'delivered')
		const log = await logOf()
		expect(
			log.body.data.deliveries.map((d: { status: string; attempt: number }) => [
				d.status,
				d.attempt,
			]),
		).toEqual([
			['delivered', 2],
			['failed', 1],
		])
		const delivered = await api('GET', `/webhook/${hook.id}/deliveries?status=delivered`, {
			token: s.cm.token,
		})
		expect(delivered.body.data).toMatchObject({ total_count: 1 })
		expect(delivered.body.data.deliveries[0]).toMatchObject({ status_code: 200, error: null })
		await Bun.sleep(schedule[1] + 200)
		expect(receiptsAt('/recover')).toHaveLength(2)
		// Nothing is left pending, so no further retry can come.
		const pending = await api('GET', `/webhook/${hook.id}/deliveries?status=pending`, {
			token: s.cm.token,
		})
		expect(pending.body.data.total_count).toBe(0)
	})

	test('a pending retry shows in the log and is discarded when the webhook is switched off', async () => {
		const s = await setup('wh-off')
		behaviour.set('/off', '500')
		const hook = await register(s, at('/off'))
		await newProfile(s)
		await waitFor(() => receiptsAt('/off').length === 1)
		const pendingLog = () =>
			api('GET', `/webhook/${hook.id}/deliveries?status=pending`, { token: s.cm.token })
		await waitFor(async () => (await pendingLog()).body.data.deliveries[0]?.attempt === 2)
		const pending = await pendingLog()
		expect(pending.body.data.total_count).toBe(1)
		expect(pending.body.data.deliveries[0]).toMatchObject({
			status: 'pending',
			attempt: 2,
			status_code: null,
		})
		await api('PATCH', `/webhook/${hook.id}`, { token: s.cm.token, body: { is_active: false } })
		await Bun.sleep(schedule[0] + 300)
		expect(receiptsAt('/off')).toHaveLength(1)
		const discarded = await api('GET', `/webhook/${hook.id}/deliveries?status=discarded`, {
			token: s.cm.token,
		})
		expect(discarded.body.data.total_count).toBe(1)
	})

	test('replay resends a time range as new attempts with the same event ids', async () => {
		const s = await setup('wh-replay')
		const hook = await register(s, at('/replay'))
		const since = Date.now()
		await newProfile(s)
		await newProfile(s)
		await waitFor(() => receiptsAt('/replay').length === 2)
		const until = Date.now()
		await Bun.sleep(5)
		await newProfile(s)
		await waitFor(() => receiptsAt('/replay').length === 3)
		const first = receiptsAt('/replay')
			.slice(0, 2)
			.map((r: Receipt) => r.id)

		const reply = await api('POST', `/webhook/${hook.id}/replay`, {
			token: s.cm.token,
			body: { since, until },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.replayed).toBe(2)
		await waitFor(() => receiptsAt('/replay').length === 5)
		const replayed = receiptsAt('/replay').slice(3)
		expect(replayed.map((r) => r.id).sort()).toEqual([...first].sort())
		expect(replayed.every((r) => r.attempt === 1)).toBe(true)
		const delivered = () =>
			api('GET', `/webhook/${hook.id}/deliveries?status=delivered&page_size=100`, {
				token: s.cm.token,
			})
		await waitFor(async () => (await delivered()).body.data.total_count === 5)
		await Bun.sleep(200)
		expect(receiptsAt('/replay')).toHaveLength(5)
		expect((await delivered()).body.data.total_count).toBe(5)

		await api('PATCH', `/webhook/${hook.id}`, { token: s.cm.token, body: { is_active: false } })
		const inactive = await api('POST', `/webhook/${hook.id}/replay`, {
			token: s.cm.token,
			body: { since },
		})
		expect(inactive.status).toBe(409)
	})

	test('webhooks of other types or communities get nothing', async () => {
		const s = await setup('wh-types')
		const other = await setup('wh-types-other')
		const postHook = await register(s, at('/types-post'), 'post.created')
		const otherHook = await register(other, at('/types-other'))
		await newProfile(s)
		// Markers sent after the profile: each webhook gets its own kind of event, and only it.
		const marker = await newProfile(other)
		const post = await createPost(s.cm, { text: 'marker' })
		await waitFor(
			() => receiptsAt('/types-post').length > 0 && receiptsAt('/types-other').length > 0,
		)
		await Bun.sleep(300)
		expect(receiptsAt('/types-post').map((r) => [r.json.event, r.json.data.post._id])).toEqual([
			['post.created', post._id],
		])
		expect(receiptsAt('/types-other').map((r) => [r.json.event, r.json.data.user.uuid])).toEqual([
			['profile.created', marker],
		])
		// The outbox recorded nothing else for them, so nothing else can still come.
		for (const [hook, owner] of [
			[postHook, s],
			[otherHook, other],
		] as const) {
			const log = await api('GET', `/webhook/${hook.id}/deliveries`, { token: owner.cm.token })
			expect(log.body.data.total_count).toBe(1)
		}
	})
})
