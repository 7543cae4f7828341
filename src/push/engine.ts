// The push engine (one per worker process), the webhook engine's twin: claims due
// deliveries from Redis with a lease, claims them again in Postgres (`sending`, only
// from `pending`) right before handing each to the provider, sends with bounded
// concurrency overall and per project, and records outcomes in batches. With it run
// the relay (fresh rows into Redis), the reaper (expired leases back to due) and the
// reconciler (rows Redis lost).
//
// At most once per delivery: a row is sent only by the worker whose update moved it
// from pending to sending. A worker killed mid-send leaves `sending` rows; whoever
// claims them after the lease records them `unknown` and does not send them again.
import { config } from '../config'
import { decrypt } from '../lib/crypto'
import { sql } from '../lib/db'
import { log } from '../lib/log'
import {
	RefusedHostError,
	type SendOutcome,
	type ServiceAccount,
	sendPush,
	TokenError,
} from './fcm'
import { pushSent } from './metrics'
import { type Claimed, claimDue, nextDueAt, reapExpired, release, requeue } from './queue'
import { reconcilePushes } from './reconcile'
import { startPushRelay } from './relay'
import {
	deleteToken,
	loadForSend,
	markCredentialsFailing,
	markSending,
	type PushOutcome,
	recordOutcomes,
	type SendRow,
} from './repo'

export interface PushEngineOptions {
	/** sends in flight at once in this process */
	concurrency: number
	/** sends in flight at once per project, so one slow project cannot take every slot */
	perProject: number
	timeoutMs: number
	retryScheduleMs: number[]
	pollMs: number
	reapMs: number
	reconcileMs: number
	reconcileGraceMs: number
}

export const defaultPushOptions = (): PushEngineOptions => ({
	concurrency: 256,
	perProject: 128,
	timeoutMs: config.PUSH_TIMEOUT_MS,
	retryScheduleMs: config.pushRetryScheduleMs,
	pollMs: 50,
	reapMs: 1000,
	reconcileMs: 5000,
	reconcileGraceMs: 2000,
})

// Decrypting a service account on every send is wasted work; the sealed text is the key.
const accounts = new Map<string, ServiceAccount>()
function accountOf(sealed: string): ServiceAccount {
	let account = accounts.get(sealed)
	if (!account) {
		if (accounts.size > 1000) accounts.clear()
		account = JSON.parse(decrypt(sealed)) as ServiceAccount
		accounts.set(sealed, account)
	}
	return account
}

/** Batches outcome writes: whatever finishes while a write is in flight joins the next. */
function createRecorder() {
	const queue: {
		outcome: PushOutcome
		from: string
		done: () => void
		fail: (e: unknown) => void
	}[] = []
	let writing = false
	async function flush() {
		if (writing || queue.length === 0) return
		writing = true
		const batch = queue.splice(0, 2000)
		try {
			for (const from of ['sending', 'pending']) {
				const part = batch.filter((b) => b.from === from).map((b) => b.outcome)
				await recordOutcomes(sql, part, [from])
			}
			for (const b of batch) b.done()
		} catch (error) {
			for (const b of batch) b.fail(error)
		} finally {
			writing = false
			if (queue.length > 0) void flush()
		}
	}
	return (outcome: PushOutcome, from: 'sending' | 'pending' = 'sending') =>
		new Promise<void>((done, fail) => {
			queue.push({ outcome, from, done, fail })
			queueMicrotask(() => void flush())
		})
}

/** Backoff with jitter (±50%) before try `attempt + 1`; the provider's Retry-After wins. */
function retryDelay(schedule: number[], attempt: number, retryAfterMs: number | null): number {
	if (retryAfterMs !== null) return retryAfterMs
	const base = schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 1000
	return Math.round(base * (0.5 + Math.random()))
}

export function startPush(overrides: Partial<PushEngineOptions> = {}): () => Promise<void> {
	const o = { ...defaultPushOptions(), ...overrides }
	const maxTries = o.retryScheduleMs.length + 1
	// A send may take a token exchange and two tries; the lease outlives all three.
	const leaseMs = o.timeoutMs * 3 + 5000
	const perProject = new Map<string, number>()
	const sends = new Set<Promise<void>>()
	const record = createRecorder()
	let running = true
	let wake: (() => void) | null = null

	const nudge = () => wake?.()
	const sleep = (ms: number) =>
		new Promise<void>((resolve) => {
			const timer = setTimeout(done, ms)
			wake = done
			function done() {
				clearTimeout(timer)
				wake = null
				resolve()
			}
		})

	async function attempt(row: SendRow): Promise<SendOutcome> {
		if (!row.sealed_file) return { kind: 'failed', error: 'no push credentials stored' }
		try {
			const account = accountOf(row.sealed_file)
			const device = { token: row.token as string, platform: row.platform ?? 'an' }
			return await sendPush(account, device, row.payload, o.timeoutMs)
		} catch (error) {
			if (error instanceof TokenError)
				return error.retryable
					? { kind: 'retry', error: error.message, retryAfterMs: null }
					: { kind: 'auth_failing', error: error.message }
			if (error instanceof RefusedHostError) return { kind: 'failed', error: error.message }
			return { kind: 'retry', error: `send failed: ${(error as Error).name}`, retryAfterMs: null }
		}
	}

	async function sendOne(claimed: Claimed, row: SendRow) {
		const outcome = await attempt(row)
		const tries = row.attempt + 1
		const failed = (error: string): PushOutcome => ({
			id: row.id,
			status: 'failed',
			dueAt: null,
			error,
		})
		switch (outcome.kind) {
			case 'sent':
				await record({ id: row.id, status: 'sent', dueAt: null, error: null })
				pushSent.inc({ outcome: 'sent' })
				return release([claimed.member])
			case 'retry': {
				if (tries >= maxTries) {
					await record(failed(`gave up after ${tries} tries: ${outcome.error}`))
					pushSent.inc({ outcome: 'failed' })
					return release([claimed.member])
				}
				const dueAt = Date.now() + retryDelay(o.retryScheduleMs, tries, outcome.retryAfterMs)
				await record({ id: row.id, status: 'pending', dueAt, error: outcome.error })
				pushSent.inc({ outcome: 'retry' })
				await requeue(claimed.member, dueAt)
				return
			}
			case 'token_invalid':
				await deleteToken(sql, row.community_id, row.device_id, row.token as string)
				await record(failed(outcome.error))
				pushSent.inc({ outcome: 'token_removed' })
				return release([claimed.member])
			case 'auth_failing':
			case 'unauthorized':
				await markCredentialsFailing(sql, row.project_id, outcome.error)
				log.warn({ projectId: row.project_id, error: outcome.error }, 'push credentials refused')
				await record(failed(outcome.error))
				pushSent.inc({ outcome: 'auth_failing' })
				return release([claimed.member])
			default:
				await record(failed(outcome.error))
				pushSent.inc({ outcome: 'failed' })
				return release([claimed.member])
		}
	}

	function start(claimed: Claimed, row: SendRow) {
		perProject.set(claimed.communityId, (perProject.get(claimed.communityId) ?? 0) + 1)
		const task = sendOne(claimed, row)
			.catch((error) => log.error({ err: error, deliveryId: row.id }, 'push failed to record'))
			.finally(() => {
				const left = (perProject.get(claimed.communityId) ?? 1) - 1
				if (left === 0) perProject.delete(claimed.communityId)
				else perProject.set(claimed.communityId, left)
				sends.delete(task)
				nudge()
			})
		sends.add(task)
	}

	/** Rows that must not be sent now are settled here; the rest are returned to send. */
	async function settle(claimed: Claimed[], rows: Map<string, SendRow>, now: number) {
		const ready: [Claimed, SendRow][] = []
		const done: string[] = []
		const waits: Promise<unknown>[] = []
		for (const c of claimed) {
			const row = rows.get(c.deliveryId)
			if (row?.status === 'sending') {
				// Its worker died after handing it over (or while): never sent twice.
				waits.push(
					record({ id: row.id, status: 'unknown', dueAt: null, error: 'worker lost mid-send' }),
				)
				pushSent.inc({ outcome: 'unknown' })
				done.push(c.member)
			} else if (row?.status !== 'pending') {
				done.push(c.member)
			} else if (row.due_at > now) {
				waits.push(requeue(c.member, row.due_at))
			} else if (!row.token) {
				waits.push(
					record({ id: row.id, status: 'discarded', dueAt: null, error: 'device gone' }, 'pending'),
				)
				pushSent.inc({ outcome: 'discarded' })
				done.push(c.member)
			} else ready.push([c, row])
		}
		await Promise.all(waits)
		await release(done)
		return ready
	}

	async function dispatch(claimed: Claimed[], now: number) {
		const rows = new Map(
			(
				await loadForSend(
					sql,
					claimed.map((c) => c.deliveryId),
				)
			).map((r) => [r.id, r]),
		)
		const ready = await settle(claimed, rows, now)
		const mine = await markSending(
			sql,
			ready.map(([, row]) => row.id),
		)
		const lost: string[] = []
		for (const [c, row] of ready) {
			if (mine.has(row.id)) start(c, row)
			else lost.push(c.member)
		}
		await release(lost)
	}

	async function loop() {
		while (running) {
			try {
				const free = o.concurrency - sends.size
				if (free <= 0) {
					await sleep(o.pollMs)
					continue
				}
				const now = Date.now()
				const claimed = await claimDue(
					now,
					now + leaseMs,
					Math.min(free, 1000),
					o.perProject,
					perProject,
				)
				if (claimed.length > 0) {
					await dispatch(claimed, now)
					continue
				}
				const next = await nextDueAt()
				const wait = next === null || next <= now ? o.pollMs : Math.min(o.pollMs, next - Date.now())
				await sleep(Math.max(1, wait))
			} catch (error) {
				log.error({ err: error }, 'push loop error')
				await sleep(500)
			}
		}
	}

	const stopRelay = startPushRelay(nudge)
	const reaper = setInterval(() => void reapExpired(Date.now()).catch(() => {}), o.reapMs)
	const reconciler = setInterval(
		() =>
			void reconcilePushes(o.reconcileGraceMs).then(
				(n) => n > 0 && nudge(),
				(error) => log.error({ err: error }, 'push reconcile failed'),
			),
		o.reconcileMs,
	)
	const looping = loop()

	return async () => {
		running = false
		clearInterval(reaper)
		clearInterval(reconciler)
		nudge()
		await stopRelay()
		await looping
		await Promise.all([...sends])
	}
}
