// Whether background work is failing, so that it shows instead of retrying silently:
//   jobs_failing{kind}       a gauge read at scrape time: fan-out jobs that failed
//                            FAILING_AFTER times or more and are not done (from
//                            Postgres, the same on every process), or 1 for an
//                            in-process loop whose last FAILING_AFTER runs all failed;
//   job_failures_total{kind} every failed attempt, counted by the process that saw it;
//   one log line per kind a minute at most, saying how many failures it stands for;
//   `jobs_failing` in the body of GET /ready (see modules/health).
import { Counter, Gauge } from 'prom-client'
import { log } from './log'
import { registry } from './metrics'

export const FAILING_AFTER = 3
const LOG_EVERY_MS = 60_000

type Source = () => Promise<number>

const sources = new Map<string, Source>()
const streaks = new Map<string, number>()
const logged = new Map<string, { at: number; suppressed: number }>()

const jobFailures = new Counter({
	name: 'job_failures_total',
	help: 'Failed attempts of background jobs (fan-out, recompute, schedules) by kind',
	labelNames: ['kind'],
	registers: [registry],
})

new Gauge({
	name: 'jobs_failing',
	help: `Background jobs that failed ${FAILING_AFTER} times or more and are not done, by kind`,
	labelNames: ['kind'],
	registers: [registry],
	async collect() {
		for (const [kind, count] of Object.entries(await failingJobs())) this.set({ kind }, count)
	},
})

/** A kind whose failing jobs are counted elsewhere (a Postgres query for durable jobs). */
export function registerFailingJobs(kind: string, count: Source): void {
	sources.set(kind, count)
}

/** Failing jobs by kind; a source that cannot answer (Postgres down) is left out. */
export async function failingJobs(): Promise<Record<string, number>> {
	const counts: Record<string, number> = {}
	for (const [kind, streak] of streaks) counts[kind] = streak >= FAILING_AFTER ? 1 : 0
	await Promise.all(
		[...sources].map(async ([kind, count]) => {
			counts[kind] = await count().catch(() => counts[kind] ?? 0)
		}),
	)
	return counts
}

/** A run of an in-process loop or schedule went through: its failure streak ends. */
export function jobSucceeded(kind: string): void {
	if (streaks.has(kind)) streaks.set(kind, 0)
}

/** Counts a failed attempt and logs it, at most once a minute per kind. */
export function jobFailed(kind: string, error: unknown, context: Record<string, unknown> = {}) {
	jobFailures.inc({ kind })
	streaks.set(kind, (streaks.get(kind) ?? 0) + 1)
	const now = Date.now()
	const last = logged.get(kind)
	if (last && now - last.at < LOG_EVERY_MS) {
		last.suppressed++
		return
	}
	logged.set(kind, { at: now, suppressed: 0 })
	log.error(
		{ err: error, kind, ...context, failuresSinceLastLine: (last?.suppressed ?? 0) + 1 },
		'background job failed (logged at most once a minute per kind; see job_failures_total and jobs_failing)',
	)
}
