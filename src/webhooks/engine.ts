// The webhook delivery engine (one per worker process) on the shared outbox engine
// (lib/outbox/engine.ts: claims with leases renewed while held, bounded concurrency
// overall and per webhook, batched settling, relay, reaper, reconciler). What is
// webhook-specific lives here: an attempt is one signed POST, recorded in Postgres
// (batched), retried by the schedule, and a webhook that keeps failing is deactivated.
import { config } from '../config'
import { sql } from '../lib/db'
import { log } from '../lib/log'
import {
	type Handler,
	type Job,
	leftAlone,
	type OutboxOptions,
	released,
	type Settle,
	startOutboxEngine,
} from '../lib/outbox/engine'
import type { Claimed } from '../lib/outbox/queue'
import { perCommunity } from '../lib/per-community'
import { send } from './deliver'
import { webhookAttemptDuration, webhookAttempts, webhookLateness } from './metrics'
import { deliveriesChannel } from './outbox'
import { deliveryOf, member, unschedule, webhookSchedule } from './queue'
import { createRecorder } from './recorder'
import {
	type AttemptRow,
	discardDelivery,
	loadForAttempt,
	type Outcome,
	queuedPendingPage,
	recordExhausted,
	takeUnqueued,
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

function webhookHandler(o: EngineOptions): Handler {
	const allow = parseAllowList(o.allowedCidrs)
	const record = createRecorder()

	/** `receiverDone` frees the webhook's slot once the receiver answered: recording needs no slot there. */
	async function attempt(
		claimed: Claimed,
		communityId: number,
		row: AttemptRow,
		claimedAt: number,
		receiverDone: () => void,
	): Promise<Settle> {
		if (!row.is_active) {
			await discardDelivery(sql, communityId, row.id)
			webhookAttempts.inc({ outcome: 'discarded' })
			return released
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
			communityId,
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
			return released
		}
		if (attempt <= o.retryScheduleMs.length) {
			const retryAt = Date.now() + o.retryScheduleMs[attempt - 1]
			const status = await record({ outcome, retryAt })
			webhookAttempts.inc({ outcome: 'retry' })
			if (status === 'pending') return { dueAt: retryAt }
			// Another worker recorded it first (null): that worker owns the member now.
			return status ? released : leftAlone
		}
		const reason = `Delivery failed ${attempt} times (last: ${result.error})`
		const discarded = await recordExhausted(sql, outcome, reason)
		webhookAttempts.inc({ outcome: 'exhausted' })
		if (discarded) {
			log.warn(
				{ webhookId: row.webhook_id, reason, discarded: discarded.length },
				'webhook deactivated',
			)
			await unschedule(discarded.map((id) => member(row.webhook_id, communityId, id)))
		}
		return released
	}

	return {
		async prepare(claimed, now) {
			const targets = claimed.flatMap((c) => {
				const delivery = deliveryOf(c)
				return delivery ? [{ claimed: c, ...delivery }] : []
			})
			const rows = new Map(
				(
					await perCommunity(
						targets,
						(t) => t.communityId,
						(communityId, part) =>
							loadForAttempt(
								sql,
								communityId,
								part.map((t) => t.deliveryId),
							),
					)
				).map((r) => [r.id, r]),
			)
			const jobs: Job[] = []
			const settled: [Claimed, Settle][] = []
			for (const t of targets) {
				const row = rows.get(t.deliveryId)
				if (!row || row.status !== 'pending') settled.push([t.claimed, released])
				else
					jobs.push({
						claimed: t.claimed,
						run: (done) => attempt(t.claimed, t.communityId, row, now, done),
					})
			}
			// A member without its community (written before members named it) is released
			// by the engine: neither run nor settled here.
			return { jobs, settled }
		},
	}
}

export function startDelivery(overrides: Partial<EngineOptions> = {}): () => Promise<void> {
	const o = { ...defaultEngineOptions(), ...overrides }
	// Short leases, renewed every third of one while this worker holds the claim: a
	// live worker keeps it through an attempt of any length, a killed one (kill -9)
	// gives its deliveries back within a lease instead of after the whole timeout.
	const options: OutboxOptions = {
		concurrency: o.concurrency,
		perGroup: o.perEndpoint,
		claimBatch: 500,
		leaseMs: Math.min(o.leaseMs, o.timeoutMs + Math.max(1000, o.timeoutMs / 4)),
		pollMs: o.pollMs,
		reapMs: o.reapMs,
		reconcileMs: o.reconcileMs,
		reconcileGraceMs: o.reconcileGraceMs,
	}
	return startOutboxEngine(
		{
			name: 'webhook',
			schedule: webhookSchedule,
			relay: {
				name: 'webhook',
				channel: deliveriesChannel,
				batch: 1000,
				take: async (limit) =>
					(await takeUnqueued(sql, limit)).map((r) => ({
						member: member(r.webhook_id, r.community_id, r.id),
						dueAt: r.due_at,
					})),
			},
			reconcile: async (afterId, limit) =>
				(await queuedPendingPage(afterId, limit)).map((r) => ({
					id: r.id,
					updatedAt: r.updated_at,
					entry: { member: member(r.webhook_id, r.community_id, r.id), dueAt: r.due_at },
				})),
			handler: webhookHandler(o),
		},
		options,
	)
}
