// Reliability with real worker processes (`bun src/index.ts`, ROLE=worker): SIGKILL
// with deliveries claimed and retries pending, lost Redis schedule, two workers at
// once, and the SSRF checks of a process whose allow-list is empty.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { sql } from '../support/db'
import { api } from '../support/http'
import { type Plaza, spawnPlaza } from '../support/process'
import { type Receiver, startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'
import { newProfile, register, setup } from '../support/webhooks'

let receiver: Receiver
const procs: Plaza[] = []
const failFirst = new Set<string>()
const slow = new Map<string, number>()

async function spawn(role: 'worker' | 'all' = 'worker', env: Record<string, string> = {}) {
	const p = await spawnPlaza(role, env)
	procs.push(p)
	return p
}

beforeAll(() => {
	receiver = startReceiver(async (r) => {
		const delay = slow.get(r.path)
		if (delay) await Bun.sleep(delay)
		if (failFirst.has(r.path) && r.attempt === 1) return new Response('not yet', { status: 503 })
		return new Response('ok')
	})
})

afterAll(async () => {
	for (const p of procs) if (p.proc.exitCode === null) await p.stop('SIGKILL')
	receiver.stop()
})

const at = (path: string) => receiver.url.replace('/hook', path)
const receiptsAt = (path: string) => receiver.receipts.filter((r) => r.path === path)

async function deliveryStatuses(webhookId: string) {
	const rows =
		await sql`select status, count(*)::int as n from webhook_deliveries where webhook_id = ${webhookId} group by status`
	return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}

async function eventIds(communityId: number) {
	const rows =
		await sql`select id from events where community_id = ${communityId} and event = 'profile.created' order by id`
	return rows.map((r) => r.id as string)
}

describe('worker processes', () => {
	test('SIGKILL with deliveries claimed and retries pending: after a restart every event is delivered', async () => {
		const s = await setup('wh-kill')
		slow.set('/kill-slow', 700)
		failFirst.add('/kill-retry')
		const slowHook = await register(s, at('/kill-slow'))
		const retryHook = await register(s, at('/kill-retry'))
		const first = await spawn()
		await Promise.all(Array.from({ length: 20 }, () => newProfile(s)))
		await waitFor(
			() => receiptsAt('/kill-slow').length >= 5 && receiptsAt('/kill-retry').length >= 5,
		)
		const inflight = await redis.zcard(keys.webhookInflight())
		await first.stop('SIGKILL')
		expect(inflight).toBeGreaterThan(0)
		const pendingAtKill =
			(await deliveryStatuses(slowHook.id)).pending + (await deliveryStatuses(retryHook.id)).pending
		expect(pendingAtKill).toBeGreaterThan(0)

		const second = await spawn()
		await waitFor(
			async () => {
				const a = await deliveryStatuses(slowHook.id)
				const b = await deliveryStatuses(retryHook.id)
				return a.delivered === 20 && b.delivered === 20
			},
			{ timeoutMs: 20_000 },
		)
		const events = await eventIds(s.community.communityId)
		const users = events.length - 1 // the CM's own profile came before the webhooks
		expect(users).toBe(20)
		for (const path of ['/kill-slow', '/kill-retry']) {
			const received = new Set(receiptsAt(path).map((r) => r.id))
			expect(received.size, path).toBe(20)
		}
		await second.stop()
	}, 60_000)

	test('a claim lasts a short lease renewed while held: an attempt longer than the lease is sent once, a killed worker gives its claims back within a lease', async () => {
		const s = await setup('wh-lease')
		const long = { WEBHOOK_TIMEOUT_MS: '60000' } // the old lease: 75 s
		// Held 8 s by the receiver, longer than the 6 s lease: renewal keeps the claim.
		slow.set('/lease-long', 8000)
		await register(s, at('/lease-long'))
		const first = await spawn('worker', long)
		await newProfile(s)
		await waitFor(() => receiptsAt('/lease-long').length === 1)
		await Bun.sleep(9000)
		expect(receiptsAt('/lease-long').length).toBe(1)

		// Killed while holding claims (the receiver keeps them 30 s): they are due again
		// within a lease, not after the 75 s the whole timeout once needed.
		slow.delete('/lease-long')
		slow.set('/lease-kill', 30_000)
		const killHook = await register(s, at('/lease-kill'))
		await Promise.all(Array.from({ length: 3 }, () => newProfile(s)))
		await waitFor(() => receiptsAt('/lease-kill').length >= 3)
		const leases = await redis.zrange(keys.webhookInflight(), 0, -1, 'WITHSCORES')
		await first.stop('SIGKILL')
		const deadlines = leases.filter((_, i) => i % 2 === 1).map(Number)
		expect(deadlines.length).toBeGreaterThan(0)
		for (const deadline of deadlines) expect(deadline).toBeLessThanOrEqual(Date.now() + 6000)
		slow.delete('/lease-kill')
		const second = await spawn('worker', long)
		await waitFor(async () => (await deliveryStatuses(killHook.id)).delivered === 3, {
			timeoutMs: 30_000,
		})
		await second.stop()
	}, 60_000)

	test('queue keys deleted with deliveries pending: the reconciler schedules them again', async () => {
		const s = await setup('wh-flush')
		failFirst.add('/flush')
		const hook = await register(s, at('/flush'))
		// Retries a minute out, so none can run before this worker stops, however slow
		// the machine; brought due again below.
		const worker = await spawn('worker', { WEBHOOK_RETRY_SCHEDULE_MS: '60000,60000,60000' })
		await Promise.all(Array.from({ length: 10 }, () => newProfile(s)))
		await waitFor(() => new Set(receiptsAt('/flush').map((r) => r.id)).size === 10)
		await worker.stop()
		// Every delivery now waits for its retry, and Redis forgets the whole schedule.
		expect(await deliveryStatuses(hook.id)).toEqual({ pending: 10 })
		await redis.del(keys.webhookDue(), keys.webhookInflight())
		await sql`update webhook_deliveries set due_at = ${Date.now()} where webhook_id = ${hook.id}`
		const worker2 = await spawn()
		await waitFor(async () => (await deliveryStatuses(hook.id)).delivered === 10, {
			timeoutMs: 20_000,
		})
		const retries = receiptsAt('/flush').filter((r) => r.attempt === 2)
		expect(new Set(retries.map((r) => r.id)).size).toBe(10)
		await worker2.stop()
	}, 60_000)

	test('two workers never deliver the same attempt concurrently', async () => {
		const s = await setup('wh-two')
		slow.set('/two', 15)
		failFirst.add('/two-retry')
		const hook = await register(s, at('/two'))
		const retryHook = await register(s, at('/two-retry'))
		const workers = await Promise.all([spawn(), spawn()])
		for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 15 }, () => newProfile(s)))
		await waitFor(
			async () =>
				(await deliveryStatuses(hook.id)).delivered === 150 &&
				(await deliveryStatuses(retryHook.id)).delivered === 150,
			{ timeoutMs: 30_000 },
		)
		await Bun.sleep(300)
		for (const path of ['/two', '/two-retry']) {
			const counts = new Map<string, number>()
			for (const r of receiptsAt(path))
				counts.set(`${r.id}#${r.attempt}`, (counts.get(`${r.id}#${r.attempt}`) ?? 0) + 1)
			expect(Math.max(...counts.values()), path).toBe(1)
			expect(counts.size, path).toBe(path === '/two' ? 150 : 300)
		}
		await Promise.all(workers.map((w) => w.stop()))
	}, 60_000)

	test('with an empty allow-list: loopback refused at registration, a name resolving to loopback refused at connect time', async () => {
		const s = await setup('wh-ssrf')
		const strict = await spawn('all', { WEBHOOK_ALLOWED_CIDRS: '' })
		const base = `http://127.0.0.1:${strict.port}`
		for (const url of [
			'http://[::1]/hook',
			'http://169.254.169.254/latest/meta-data',
			'http://10.0.0.5/hook',
			`http://localhost:${receiver.port}/x`,
		]) {
			const reply = await fetch(`${base}/webhook`, {
				method: 'POST',
				headers: { authorization: `Bearer ${s.cm.token}`, 'content-type': 'application/json' },
				body: JSON.stringify({ webhook_type: 'profile.created', url }),
			})
			expect(reply.status, url).toBe(400)
			expect(((await reply.json()) as { error_message: string }).error_message, url).toContain(
				'private or reserved',
			)
		}
		// Registered where loopback is allowed; delivered by the strict process, which refuses to connect.
		const hook = await register(s, `http://localhost:${receiver.port}/ssrf`)
		await newProfile(s)
		await waitFor(
			async () => {
				const log = await api('GET', `/webhook/${hook.id}/deliveries?status=failed`, {
					token: s.cm.token,
				})
				return log.body.data.total_count >= 1
			},
			{ timeoutMs: 10_000 },
		)
		const log = await api('GET', `/webhook/${hook.id}/deliveries?status=failed`, {
			token: s.cm.token,
		})
		expect(log.body.data.deliveries[0].error).toMatch(
			/^Refused: url host localhost resolves to a private or reserved address/,
		)
		expect(log.body.data.deliveries[0].status_code).toBeNull()
		expect(receiptsAt('/ssrf')).toHaveLength(0)
		await strict.stop()
	}, 60_000)
})
