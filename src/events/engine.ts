// The delivery engine (one per worker process): claims due deliveries from Redis,
// attempts them with bounded concurrency overall and per webhook, records every
// attempt in Postgres, and schedules retries. With it run the relay (fresh rows into
// Redis), the reaper (expired leases back to due) and the reconciler (rows Redis lost).
import { config } from '../config'
import { sql } from '../lib/db'
import { log } from '../lib/log'
import { send } from './deliver'
import { webhookAttemptDuration, webhookAttempts, webhookLateness } from './metrics'
import {
	type Claimed,
	claimDue,
	member,
	nextDueAt,
	reapExpired,
	release,
	renewLeases,
	requeue,
	unschedule,
} from './queue'
import { reconcileOnce } from './reconcile'
import { createRecorder } from './recorder'
import { startRelay } from './relay'
import {
	type AttemptRow,
	discardDelivery,
	loadForAttempt,
	type Outcome,
	recordExhausted,
} from './repo'
import { parseAllowList } from './ssrf'

export interface EngineOptions {
	/** attempts in flight at once in this process */
	concurrency: number
	/** attempts in flight at once per webhook, so one slow receiver cannot take every slot */
	perEndpoint: number
	timeoutMs: number
	retryScheduleMs: number[]
	allowedCidrs: string[]
	/** longest idle sleep between claims */
	pollMs: number
	reapMs: number
	reconcileMs: number
	reconcileGraceMs: number
	/** how long a claim lasts unless renewed (renewed every third of it while held) */
	leaseMs: number
}

export const defaultEngineOptions = (): EngineOptions => ({
	concurrency: 256,
	perEndpoint: 32,
	timeoutMs: config.WEBHOOK_TIMEOUT_MS,
	retryScheduleMs: config.webhookRetryScheduleMs,
	allowedCidrs: config.webhookAllowedCidrs,
	pollMs: 50,
	reapMs: 1000,
	reconcileMs: 5000,
	reconcileGraceMs: 2000,
	leaseMs: 6000,
})

export function startDelivery(overrides: Partial<EngineOptions> = {}): () => Promise<void> {
	const o = { ...defaultEngineOptions(), ...overrides }
	const allow = parseAllowList(o.allowedCidrs)
	// Short leases, renewed every third of one while this worker holds the claim: a
	// live worker keeps it through an attempt of any length, a killed one (kill -9)
	// gives its deliveries back within a lease instead of after the whole timeout.
	const leaseMs = Math.min(o.leaseMs, o.timeoutMs + Math.max(1000, o.timeoutMs / 4))
	const held = new Set<string>()
	const perWebhook = new Map<string, number>()
	const attempts = new Set<Promise<void>>()
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

	/** `receiverDone` frees the webhook's slot once the receiver answered: recording needs no slot there. */
	async function attemptOne(
		claimed: Claimed,
		row: AttemptRow | undefined,
		claimedAt: number,
		receiverDone: () => void,
	) {
		if (!row || row.status !== 'pending') return release([claimed.member])
		if (!row.is_active) {
			await discardDelivery(sql, row.id)
			webhookAttempts.inc({ outcome: 'discarded' })
			return release([claimed.member])
		}
		webhookLateness.observe(
			{ kind: row.attempt === 0 ? 'first' : 'retry' },
			Math.max(0, claimedAt - claimed.dueAt) / 1000,
		)
		const attempt = row.attempt + 1
		const result = await send(row, attempt, o.timeoutMs, allow)
		receiverDone()
		webhookAttemptDuration.observe(result.durationMs / 1000)
		const outcome: Outcome = {
			deliveryId: row.id,
			webhookId: row.webhook_id,
			eventId: row.event_id,
			event: row.event,
			attempt,
			...result,
		}
		if (result.ok) {
			await record({ outcome, retryAt: null })
			webhookAttempts.inc({ outcome: 'delivered' })
			return release([claimed.member])
		}
		if (attempt <= o.retryScheduleMs.length) {
			const retryAt = Date.now() + o.retryScheduleMs[attempt - 1]
			const status = await record({ outcome, retryAt })
			webhookAttempts.inc({ outcome: 'retry' })
			if (status === 'pending') await requeue(claimed.member, retryAt)
			else if (status) await release([claimed.member])
			return
		}
		const reason = `Delivery failed ${attempt} times (last: ${result.error})`
		const discarded = await recordExhausted(sql, outcome, reason)
		webhookAttempts.inc({ outcome: 'exhausted' })
		await release([claimed.member])
		if (discarded) {
			log.warn(
				{ webhookId: row.webhook_id, reason, discarded: discarded.length },
				'webhook deactivated',
			)
			await unschedule(discarded.map((id) => member(row.webhook_id, id)))
		}
	}

	function start(claimed: Claimed, row: AttemptRow | undefined, claimedAt: number) {
		held.add(claimed.member)
		perWebhook.set(claimed.webhookId, (perWebhook.get(claimed.webhookId) ?? 0) + 1)
		let slotHeld = true
		const freeSlot = () => {
			if (!slotHeld) return
			slotHeld = false
			const left = (perWebhook.get(claimed.webhookId) ?? 1) - 1
			if (left === 0) perWebhook.delete(claimed.webhookId)
			else perWebhook.set(claimed.webhookId, left)
			nudge()
		}
		const task = attemptOne(claimed, row, claimedAt, freeSlot)
			.catch((error) =>
				log.error(
					{ err: error, deliveryId: claimed.deliveryId },
					'webhook attempt failed to record',
				),
			)
			.finally(() => {
				held.delete(claimed.member)
				freeSlot()
				attempts.delete(task)
				nudge()
			})
		attempts.add(task)
	}

	async function dispatch(claimed: Claimed[], claimedAt: number) {
		const rows = new Map(
			(
				await loadForAttempt(
					sql,
					claimed.map((c) => c.deliveryId),
				)
			).map((r) => [r.id, r]),
		)
		for (const c of claimed) start(c, rows.get(c.deliveryId), claimedAt)
	}

	async function loop() {
		while (running) {
			try {
				const free = o.concurrency - attempts.size
				if (free <= 0) {
					await sleep(o.pollMs)
					continue
				}
				const now = Date.now()
				const claimed = await claimDue(
					now,
					now + leaseMs,
					Math.min(free, 500),
					o.perEndpoint,
					perWebhook,
				)
				if (claimed.length > 0) {
					await dispatch(claimed, now)
					continue
				}
				// Nothing claimable: sleep until the next due time, or (when what is due
				// belongs to saturated webhooks) until an attempt ends and frees a slot.
				const next = await nextDueAt()
				const wait = next === null || next <= now ? o.pollMs : Math.min(o.pollMs, next - Date.now())
				await sleep(Math.max(1, wait))
			} catch (error) {
				log.error({ err: error }, 'webhook delivery loop error')
				await sleep(500)
			}
		}
	}

	const stopRelay = startRelay(nudge)
	const reaper = setInterval(() => void reapExpired(Date.now()).catch(() => {}), o.reapMs)
	const renewer = setInterval(
		() =>
			void renewLeases([...held], Date.now() + leaseMs).catch((error) =>
				log.error({ err: error }, 'webhook lease renewal failed'),
			),
		leaseMs / 3,
	)
	const reconciler = setInterval(
		() =>
			void reconcileOnce(o.reconcileGraceMs).then(
				(n) => n > 0 && nudge(),
				(error) => log.error({ err: error }, 'webhook reconcile failed'),
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
		// Claimed attempts finish (each is bounded by the timeout) before the process exits.
		await Promise.all([...attempts])
		clearInterval(renewer) // held until here, so no other worker takes them meanwhile
	}
}
