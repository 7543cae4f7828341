// Process entry: prepare the database, then serve HTTP and/or run the worker
// (ROLE=api|worker|all), and shut down gracefully on SIGTERM/SIGINT.
import http from 'node:http'
import { config } from './config'
import { ensureDatabase, replica, sql } from './lib/db'
import { SERVER_MAX_BODY_BYTES, SERVER_MAX_HEADER_BYTES } from './lib/input-limits'
import { log } from './lib/log'
import { startMetricsServer } from './lib/metrics-server'
import { migrate } from './lib/migrate'
import { redis } from './lib/redis'
import { ensureDemoProject } from './modules/projects/demo'
import { flushFeedConfirmations } from './timelines/feed-marks'
import { startWorker } from './worker'

const stops: (() => Promise<void>)[] = []

// Registered before anything else: a signal that arrives while the process starts (or
// right after it logged that it listens) is a graceful stop, never the default kill.
let stopping = false
async function shutdown(signal: string) {
	if (stopping) return
	stopping = true
	log.info({ signal }, 'shutting down')
	// Bounded: a stop that never returns must not keep a terminated process alive.
	setTimeout(() => {
		log.error('shutdown timed out, exiting')
		process.exit(1)
	}, config.WEBHOOK_TIMEOUT_MS + 10_000).unref()
	// API first (stop accepting, finish in-flight requests), then the worker's claimed jobs.
	for (const stop of stops) await stop()
	await flushFeedConfirmations()
	await Promise.all([sql.end({ timeout: 5 }), replica !== sql && replica.end({ timeout: 5 })])
	redis.disconnect()
	process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))

await ensureDatabase(config.DATABASE_URL)
await migrate((msg) => log.info(msg))
// Only serving processes create the demo project; several racing on an empty
// database are fine (the loser sees the owner number taken and skips).
if (config.ROLE !== 'worker') await ensureDemoProject()

if (config.ROLE !== 'worker') {
	const { app } = await import('./app')
	// Bun's header limit is process-wide, read when a server starts (no Bun.serve option).
	Object.assign(http, { maxHeaderSize: SERVER_MAX_HEADER_BYTES })
	app.listen({
		hostname: config.host,
		port: config.PORT,
		reusePort: config.REUSE_PORT,
		maxRequestBodySize: SERVER_MAX_BODY_BYTES,
	})
	// PORT=0 picks a free port; log the real one.
	log.info({ host: config.host, port: app.server?.port ?? config.PORT }, 'api listening')
	stops.push(async () => {
		await app.stop()
	})
}
if (config.ROLE !== 'api') {
	stops.push(await startWorker())
	log.info('worker started')
}
if (config.METRICS_PORT !== undefined) stops.push(startMetricsServer(config.METRICS_PORT))
