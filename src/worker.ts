// The worker: background loops and croner schedules. Each part registers here and
// returns a stop function that finishes its in-flight work.
import { Cron } from 'croner'
import { startImportRunner } from './import/runner'
import { jobs } from './jobs'
import { jobFailed, jobSucceeded } from './lib/job-health'
// Registers the chat notices' push source, which every push engine runs (push/sources.ts).
import './modules/conversations/notices'
import { startPush } from './push/engine'
import { startFanOutConsumer } from './timelines/fanout'
import { startRecomputeConsumer } from './timelines/recompute'
import { startDelivery } from './webhooks/engine'

export type Stop = () => Promise<void>

/** Long-running consumers (fan-out, webhook delivery, ...) started with the worker. */
const loops: (() => Stop)[] = [
	() => startDelivery(),
	() => startPush(),
	() => startFanOutConsumer(),
	() => startRecomputeConsumer(),
	() => startImportRunner(),
]

export async function startWorker(): Promise<Stop> {
	const crons = jobs.map(
		(job) =>
			new Cron(job.pattern, { name: job.name, protect: true }, async () => {
				try {
					await job.run()
					jobSucceeded(`schedule:${job.name}`)
				} catch (error) {
					jobFailed(`schedule:${job.name}`, error)
				}
			}),
	)
	const stops = loops.map((start) => start())
	return async () => {
		for (const cron of crons) cron.stop()
		await Promise.all(stops.map((stop) => stop()))
	}
}
