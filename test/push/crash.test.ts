// A worker process is SIGKILLed while the provider holds its sends; afterwards every
// device has its push exactly once: what the dead worker handed over is recorded
// `unknown` and never sent again, and everything else is sent by the next worker.
import { afterAll, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import { newCommunity, newUser } from '../support/community'
import { sql } from '../support/db'
import { type FakeFcm, startFakeFcm } from '../support/fake-fcm'
import { api } from '../support/http'
import { pushStatuses, storeCredentials } from '../support/push'
import { waitFor } from '../support/wait'

const RECIPIENTS = 400
const ANSWERED_BEFORE_HOLD = 60
let fake: FakeFcm
let stopEngine: (() => Promise<void>) | null = null

afterAll(async () => {
	await stopEngine?.()
	fake?.stop()
})

function startWorker() {
	return Bun.spawn([process.execPath, 'src/index.ts'], {
		env: {
			...process.env,
			ROLE: 'worker',
			NODE_ENV: 'test',
			LOG_LEVEL: 'warn',
			PORT: '0',
			PUSH_TIMEOUT_MS: '3000',
		},
		stdout: 'ignore',
		stderr: 'ignore',
	})
}

test('a worker killed mid-batch: every device gets its push exactly once', async () => {
	fake = startFakeFcm()
	const community = await newCommunity('push-crash')
	await storeCredentials(community, fake)
	const cm = await newUser(community, { role: 'cm' })
	// Recipients and their devices in bulk (400 initiates would only slow the test).
	const rows = await sql`
		insert into users (uuid, community_id, user_unique_id, name)
		select gen_random_uuid(), ${community.communityId}, 'r-' || g, 'Recipient ' || g from generate_series(1, ${RECIPIENTS}) g
		returning id::float8 as id, uuid::text as uuid`
	await sql`
		insert into devices (community_id, device_id, user_id, token, platform, created_at, updated_at)
		select ${community.communityId}, 'dev-' || id, id, 'tok-' || id, 'an', 0, 0 from unnest(${rows.map((r) => r.id)}::int8[]) id`

	// The provider answers the first sends, then holds every answer: the worker's
	// sends stay in flight until it is killed.
	let release: () => void = () => {}
	const held = new Promise<void>((resolve) => {
		release = resolve
	})
	fake.answer = async (_m, count) => {
		if (count > ANSWERED_BEFORE_HOLD) await held
		return Response.json({ name: 'projects/x/messages/1' })
	}
	const worker = startWorker()
	const created = await api('POST', '/feed/user/activity', {
		token: cm.token,
		body: {
			action: 'custom_activity',
			action_on: rows.map((r) => r.uuid),
			entity_type: 'user',
			entity_id: cm.uuid,
			activity_text: 'Welcome aboard',
		},
	})
	expect(created.status).toBe(200)

	// Killed once it has handed the provider more than it got answers for, and stopped
	// handing over more (every send slot busy).
	let seen = 0
	await waitFor(
		async () => {
			const now = fake.messages.length
			const steady = now > ANSWERED_BEFORE_HOLD && now === seen
			seen = now
			if (!steady) await Bun.sleep(300)
			return steady
		},
		{ timeoutMs: 20_000 },
	)
	worker.kill('SIGKILL')
	await worker.exited
	const handedOver = fake.messages.length
	expect(handedOver).toBeGreaterThan(ANSWERED_BEFORE_HOLD)
	expect(handedOver).toBeLessThan(RECIPIENTS)
	release()

	stopEngine = startPush({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })
	await waitFor(
		async () => {
			const s = await pushStatuses(community)
			return !s.pending && !s.sending
		},
		{ timeoutMs: 40_000 },
	)

	const perToken = new Map<string, number>()
	for (const m of fake.messages) perToken.set(m.token, (perToken.get(m.token) ?? 0) + 1)
	expect(perToken.size).toBe(RECIPIENTS)
	expect([...perToken.values()].every((n) => n === 1)).toBe(true)
	const statuses = await pushStatuses(community)
	expect(statuses.sent + (statuses.unknown ?? 0)).toBe(RECIPIENTS)
	// What the dead worker had in flight is exactly what is unknown.
	expect(statuses.unknown).toBe(handedOver - ANSWERED_BEFORE_HOLD)
}, 120_000)
