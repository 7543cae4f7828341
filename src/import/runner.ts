// Runs import jobs in the worker (one at a time per process). A job is claimed with a
// lease kept alive while it runs; a process that dies stops renewing it, and once it
// expires any worker claims the job again and re-runs it from its stored upload — the
// import is idempotent, so the re-run ends as one clean run would. A stopping worker
// leaves its job to that path rather than marking it failed.
import { config } from '../config'
import { sql } from '../lib/db'
import { log } from '../lib/log'
import { startWorkerLoop } from '../lib/worker-loop'
import {
	claimJob,
	deleteStaleUploads,
	extendLease,
	finishJob,
	type JobRow,
	jobChunks,
	recordProgress,
} from './jobs-repo'
import { linesOfChunks } from './lines'
import { collectedRejects } from './rejects'
import { runImport } from './run'

export interface RunnerOptions {
	pollMs: number
	leaseSeconds: number
	/** uploads with no chunk for this long were abandoned by their process */
	staleUploadMs: number
}

const defaults: RunnerOptions = {
	pollMs: 1000,
	leaseSeconds: config.IMPORT_LEASE_SECONDS,
	staleUploadMs: 10 * 60_000,
}
const PROGRESS_MS = 2000
export const KEPT_REJECTS = 1000

async function runJob(job: JobRow, o: RunnerOptions, stopping: () => boolean): Promise<void> {
	const lease = setInterval(
		() => void extendLease(sql, job.community_id, job.id, o.leaseSeconds).catch(() => {}),
		(o.leaseSeconds * 1000) / 3,
	)
	const rejects = collectedRejects(KEPT_REJECTS)
	let lastProgress = 0
	try {
		const summary = await runImport({
			communityId: job.community_id,
			lines: linesOfChunks(jobChunks(sql, job.community_id, job.id)),
			reread: () => linesOfChunks(jobChunks(sql, job.community_id, job.id)),
			rejects,
			onProgress: ({ done, rejects: count }) => {
				if (Date.now() - lastProgress < PROGRESS_MS) return
				lastProgress = Date.now()
				void recordProgress(
					sql,
					job.community_id,
					job.id,
					{ read: done, rejects: count },
					Date.now(),
				).catch(() => {})
			},
		})
		const counts = {
			imported: summary.imported,
			matched: summary.matched,
			seconds: summary.seconds,
		}
		await finishJob(
			sql,
			job.community_id,
			job.id,
			{
				status: 'succeeded',
				counts,
				rejects: rejects.kept,
				rejectCount: summary.rejects,
				error: null,
			},
			Date.now(),
		)
	} catch (error) {
		if (stopping()) return
		log.error({ err: error, job: job.id }, 'import job failed')
		await finishJob(
			sql,
			job.community_id,
			job.id,
			{
				status: 'failed',
				counts: {},
				rejects: rejects.kept,
				rejectCount: rejects.kept.length,
				error: (error as Error).message,
			},
			Date.now(),
		)
	} finally {
		clearInterval(lease)
	}
}

/** The worker loop (lib/worker-loop.ts): one job at a time, polling every pollMs when none is due. */
export function startImportRunner(overrides: Partial<RunnerOptions> = {}): () => Promise<void> {
	const o = { ...defaults, ...overrides }
	const loop = startWorkerLoop({
		pass: async (stopping) => {
			await deleteStaleUploads(Date.now() - o.staleUploadMs)
			const job = await claimJob(sql, o.leaseSeconds, Date.now())
			if (!job) return false
			await runJob(job, o, stopping)
			return true
		},
		onError: (error, stopping) => {
			if (!stopping) log.error({ err: error }, 'import runner error')
		},
		idleMs: o.pollMs,
	})
	return async () => {
		await Promise.race([loop.stop(), Bun.sleep(1000)])
	}
}
