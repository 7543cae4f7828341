// The push engine (one per worker process) on the shared outbox engine
// (lib/outbox/engine.ts: batched claims with a 6 s lease renewed every 2 s while held,
// bounded concurrency overall and per project, batched settling, relay, reaper,
// reconciler). What is push-specific lives here: a claimed batch is loaded in one
// query and claimed again in Postgres (`sending`, only from `pending`) in one update
// right before its sends; each send is one FCM request over kept-alive connections
// with the cached OAuth token (fcm.ts); outcomes are recorded in batches.
//
// At most once per delivery: a row is sent only by the worker whose update moved it
// from pending to sending. A worker killed mid-send leaves `sending` rows; whoever
// claims them after the lease records them `unknown` and does not send them again.
import { config } from '../config'
import { decrypt } from '../lib/crypto'
import { sql } from '../lib/db'
import { flushWhileWriting } from '../lib/flush-while-writing'
import { log } from '../lib/log'
import {
	type Handler,
	type Job,
	released,
	type Settle,
	startOutboxEngine,
} from '../lib/outbox/engine'
import type { Claimed } from '../lib/outbox/queue'
import { perCommunity } from '../lib/per-community'
import {
	RefusedHostError,
	type SendOutcome,
	type ServiceAccount,
	sendPush,
	TokenError,
} from './fcm'
import { pushSent } from './metrics'
import { pushChannel } from './outbox'
import { member, pushSchedule } from './queue'
import {
	deleteToken,
	loadForSend,
	markCredentialsFailing,
	markSending,
	openPage,
	type PushOutcome,
	recordOutcomes,
	type SendRow,
	takeUnqueued,
} from './repo'
import { startPushSources } from './sources'

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
	/** how long a claim lasts unless renewed (renewed every third of it while held) */
	leaseMs: number
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
	leaseMs: 6000,
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

/**
 * Batches outcome writes: whatever finishes while a write is in flight joins the next
 * (lib/flush-while-writing.ts); a write records rows claimed `sending`, then `pending`.
 */
function createRecorder() {
	const record = flushWhileWriting<{ outcome: PushOutcome; from: string }, void>(async (batch) => {
		for (const from of ['sending', 'pending']) {
			const part = batch.filter((b) => b.from === from).map((b) => b.outcome)
			await perCommunity(
				part,
				(o) => o.communityId,
				async (communityId, outcomes) => {
					await recordOutcomes(sql, communityId, outcomes, [from])
					return []
				},
			)
		}
	}, 2000)
	return (outcome: PushOutcome, from: 'sending' | 'pending' = 'sending') =>
		record({ outcome, from })
}

/** Backoff with jitter (±50%) before try `attempt + 1`; the provider's Retry-After wins. */
function retryDelay(schedule: number[], attempt: number, retryAfterMs: number | null): number {
	if (retryAfterMs !== null) return retryAfterMs
	const base = schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 1000
	return Math.round(base * (0.5 + Math.random()))
}

const communityOf = (claimed: Claimed) => Number(claimed.group)

function pushHandler(o: PushEngineOptions): Handler {
	const maxTries = o.retryScheduleMs.length + 1
	const record = createRecorder()

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

	async function sendOne(row: SendRow): Promise<Settle> {
		const outcome = await attempt(row)
		const tries = row.attempt + 1
		const failed = (error: string): PushOutcome => ({
			communityId: row.community_id,
			id: row.id,
			status: 'failed',
			dueAt: null,
			error,
		})
		switch (outcome.kind) {
			case 'sent':
				await record({
					communityId: row.community_id,
					id: row.id,
					status: 'sent',
					dueAt: null,
					error: null,
				})
				pushSent.inc({ outcome: 'sent' })
				return released
			case 'retry': {
				if (tries >= maxTries) {
					await record(failed(`gave up after ${tries} tries: ${outcome.error}`))
					pushSent.inc({ outcome: 'failed' })
					return released
				}
				const dueAt = Date.now() + retryDelay(o.retryScheduleMs, tries, outcome.retryAfterMs)
				await record({
					communityId: row.community_id,
					id: row.id,
					status: 'pending',
					dueAt,
					error: outcome.error,
				})
				pushSent.inc({ outcome: 'retry' })
				return { dueAt }
			}
			case 'token_invalid':
				await deleteToken(sql, row.community_id, row.device_id, row.token as string)
				await record(failed(outcome.error))
				pushSent.inc({ outcome: 'token_removed' })
				return released
			case 'auth_failing':
			case 'unauthorized':
				await markCredentialsFailing(sql, row.project_id, outcome.error)
				log.warn({ projectId: row.project_id, error: outcome.error }, 'push credentials refused')
				await record(failed(outcome.error))
				pushSent.inc({ outcome: 'auth_failing' })
				return released
			default:
				await record(failed(outcome.error))
				pushSent.inc({ outcome: 'failed' })
				return released
		}
	}

	return {
		/** Rows that must not be sent now are settled here; the rest become sends. */
		async prepare(claimed, now) {
			// Members are `<communityId>:<deliveryId>`: one statement per community.
			const rows = new Map(
				(
					await perCommunity(claimed, communityOf, (communityId, part) =>
						loadForSend(
							sql,
							communityId,
							part.map((c) => c.id),
						),
					)
				).map((r) => [r.id, r]),
			)
			const ready: [Claimed, SendRow][] = []
			const settled: [Claimed, Settle][] = []
			const waits: Promise<unknown>[] = []
			for (const c of claimed) {
				const row = rows.get(c.id)
				if (row?.status === 'sending') {
					// Its worker died after handing it over (or while): never sent twice.
					waits.push(
						record({
							communityId: row.community_id,
							id: row.id,
							status: 'unknown',
							dueAt: null,
							error: 'worker lost mid-send',
						}),
					)
					pushSent.inc({ outcome: 'unknown' })
					settled.push([c, released])
				} else if (row?.status !== 'pending') {
					settled.push([c, released])
				} else if (row.due_at > now) {
					settled.push([c, { dueAt: row.due_at }])
				} else if (!row.token) {
					waits.push(
						record(
							{
								communityId: row.community_id,
								id: row.id,
								status: 'discarded',
								dueAt: null,
								error: 'device gone',
							},
							'pending',
						),
					)
					pushSent.inc({ outcome: 'discarded' })
					settled.push([c, released])
				} else ready.push([c, row])
			}
			await Promise.all(waits)
			const mine = new Set(
				await perCommunity(
					ready,
					([, row]) => row.community_id,
					(communityId, part) =>
						markSending(
							sql,
							communityId,
							part.map(([, row]) => row.id),
						),
				),
			)
			const jobs: Job[] = []
			for (const [c, row] of ready) {
				if (mine.has(row.id)) jobs.push({ claimed: c, run: () => sendOne(row) })
				else settled.push([c, released])
			}
			return { jobs, settled }
		},
	}
}

export function startPush(overrides: Partial<PushEngineOptions> = {}): () => Promise<void> {
	const o = { ...defaultPushOptions(), ...overrides }
	// What makes push rows runs beside what sends them (a chat message's notice: sources.ts).
	const stopSources = startPushSources()
	const stopEngine = startOutboxEngine(
		{
			name: 'push',
			schedule: pushSchedule,
			relay: {
				name: 'push',
				channel: pushChannel,
				batch: 5000,
				take: async (limit) =>
					(await takeUnqueued(sql, limit)).map((r) => ({
						member: member(r.community_id, r.id),
						dueAt: r.due_at,
					})),
			},
			// A `sending` row Redis lost is due at once: a worker claims it and records it
			// `unknown` (it may have reached the provider: never sent twice).
			reconcile: async (afterId, limit) =>
				(await openPage(afterId, limit)).map((r) => ({
					id: r.id,
					updatedAt: r.updated_at,
					entry: {
						member: member(r.community_id, r.id),
						dueAt: r.status === 'sending' ? 0 : r.due_at,
					},
				})),
			handler: pushHandler(o),
		},
		{
			concurrency: o.concurrency,
			perGroup: o.perProject,
			claimBatch: 1000,
			leaseMs: o.leaseMs,
			pollMs: o.pollMs,
			reapMs: o.reapMs,
			reconcileMs: o.reconcileMs,
			reconcileGraceMs: o.reconcileGraceMs,
		},
	)
	return async () => {
		await stopSources()
		await stopEngine()
	}
}
