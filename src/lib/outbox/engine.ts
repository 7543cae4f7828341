// One outbox engine, parameterised by its table (relay and reconciler queries) and its
// handler (what one claimed row means): webhook deliveries (webhooks/engine.ts) and
// pushes (push/engine.ts) both run on it. Per worker process it claims due members
// from Redis in batches with a short lease renewed while held, hands them to the
// handler with bounded concurrency overall and per group, and settles them (release,
// or back to due at a time) in batched Redis calls once the handler has recorded the
// outcome in Postgres. With it run the relay (fresh rows into Redis), the reaper
// (expired leases back to due) and the reconciler (rows Redis lost).
import { flushWhileWriting } from '../flush-while-writing'
import { log } from '../log'
import type { Claimed, Entry, Schedule } from './queue'
import { type OpenPage, reconcileOnce } from './reconcile'
import { type RelaySpec, startRelay } from './relay'

/**
 * What becomes of a claimed member once its job is done: released, due again at a
 * time, or left alone (another worker has claimed it since and settles it).
 */
export type Settle = { release: true } | { dueAt: number } | { leave: true }
export const released: Settle = { release: true }
export const leftAlone: Settle = { leave: true }

export interface Job {
	claimed: Claimed
	/** `groupDone()` frees the group's slot early (the receiver answered; recording needs none) */
	run(groupDone: () => void): Promise<Settle>
}

export interface Handler {
	/**
	 * Loads the claimed rows (one query for the batch) and returns the jobs to run now;
	 * members that need no run (gone, not due, settled otherwise) come back in `settled`.
	 */
	prepare(claimed: Claimed[], now: number): Promise<{ jobs: Job[]; settled: [Claimed, Settle][] }>
}

export interface OutboxSpec {
	/** for log lines: 'webhook', 'push' */
	name: string
	schedule: Schedule
	relay: RelaySpec
	reconcile: OpenPage
	handler: Handler
}

export interface OutboxOptions {
	/** jobs in flight at once in this process */
	concurrency: number
	/** jobs in flight at once per group, so one slow receiver cannot take every slot */
	perGroup: number
	/** most members taken by one claim */
	claimBatch: number
	/** how long a claim lasts unless renewed (renewed every third of it while held) */
	leaseMs: number
	/** longest idle sleep between claims */
	pollMs: number
	reapMs: number
	reconcileMs: number
	reconcileGraceMs: number
}

/**
 * Batches settlements: whatever finishes while a Redis call is in flight joins the next
 * (lib/flush-while-writing.ts). Never rejects: a failed call is logged, and its members
 * are left in flight until their lease runs out and the reaper makes them due again.
 */
function createSettler(schedule: Schedule) {
	const settle = flushWhileWriting<{ member: string; settle: Settle }, void>(async (batch) => {
		try {
			const release = batch.flatMap((b) => ('release' in b.settle ? [b.member] : []))
			const requeue = batch.flatMap((b): Entry[] =>
				'dueAt' in b.settle ? [{ member: b.member, dueAt: b.settle.dueAt }] : [],
			)
			await Promise.all([schedule.release(release), schedule.requeue(requeue)])
		} catch (error) {
			log.error({ err: error, members: batch.length }, 'outbox settle failed')
		}
	})
	return (member: string, outcome: Settle) => settle({ member, settle: outcome })
}

export function startOutboxEngine(spec: OutboxSpec, o: OutboxOptions): () => Promise<void> {
	const { schedule, handler } = spec
	const held = new Set<string>()
	const perGroup = new Map<string, number>()
	const jobs = new Set<Promise<void>>()
	const settle = createSettler(schedule)
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

	function start(job: Job) {
		const { member, group } = job.claimed
		held.add(member)
		perGroup.set(group, (perGroup.get(group) ?? 0) + 1)
		let slotHeld = true
		const groupDone = () => {
			if (!slotHeld) return
			slotHeld = false
			const left = (perGroup.get(group) ?? 1) - 1
			if (left === 0) perGroup.delete(group)
			else perGroup.set(group, left)
			nudge()
		}
		const task = job
			.run(groupDone)
			.then(
				(outcome) => settle(member, outcome),
				(error) =>
					log.error({ err: error, id: job.claimed.id }, `${spec.name} job failed to record`),
			)
			.finally(() => {
				held.delete(member)
				groupDone()
				jobs.delete(task)
				nudge()
			})
		jobs.add(task)
	}

	async function dispatch(claimed: Claimed[], now: number) {
		// Held (and renewed) from the claim on, also while the batch is prepared; if the
		// preparation fails they are left to their lease and the reaper.
		for (const c of claimed) held.add(c.member)
		let prepared: Awaited<ReturnType<Handler['prepare']>>
		try {
			prepared = await handler.prepare(claimed, now)
		} catch (error) {
			for (const c of claimed) held.delete(c.member)
			throw error
		}
		const started = new Set<string>()
		for (const job of prepared.jobs) {
			started.add(job.claimed.member)
			start(job)
		}
		const settled = new Map(prepared.settled.map(([c, s]) => [c.member, s]))
		// A member the handler neither ran nor settled has nothing left to do.
		for (const c of claimed)
			if (!started.has(c.member) && !settled.has(c.member)) settled.set(c.member, released)
		await Promise.all(
			[...settled].map(async ([member, s]) => {
				await settle(member, s)
				held.delete(member)
			}),
		)
	}

	async function loop() {
		while (running) {
			try {
				const free = o.concurrency - jobs.size
				if (free <= 0) {
					await sleep(o.pollMs)
					continue
				}
				const now = Date.now()
				const claimed = await schedule.claim(
					now,
					now + o.leaseMs,
					Math.min(free, o.claimBatch),
					o.perGroup,
					perGroup,
				)
				if (claimed.length > 0) {
					await dispatch(claimed, now)
					continue
				}
				// Nothing claimable: sleep until the next due time, or (when what is due
				// belongs to saturated groups) until a job ends and frees a slot.
				const next = await schedule.nextDueAt()
				const wait = next === null || next <= now ? o.pollMs : Math.min(o.pollMs, next - Date.now())
				await sleep(Math.max(1, wait))
			} catch (error) {
				log.error({ err: error }, `${spec.name} loop error`)
				await sleep(500)
			}
		}
	}

	const stopRelay = startRelay(spec.relay, schedule, nudge)
	const reaper = setInterval(() => void schedule.reapExpired(Date.now()).catch(() => {}), o.reapMs)
	const renewer = setInterval(
		() =>
			void schedule
				.renewLeases([...held], Date.now() + o.leaseMs)
				.catch((error) => log.error({ err: error }, `${spec.name} lease renewal failed`)),
		o.leaseMs / 3,
	)
	const reconciler = setInterval(
		() =>
			void reconcileOnce(schedule, spec.reconcile, o.reconcileGraceMs).then(
				(n) => n > 0 && nudge(),
				(error) => log.error({ err: error }, `${spec.name} reconcile failed`),
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
		// Claimed jobs finish (each is bounded by its timeout) before the process exits.
		await Promise.all([...jobs])
		clearInterval(renewer) // held until here, so no other worker takes them meanwhile
	}
}
