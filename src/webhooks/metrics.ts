// Webhook metrics on the shared registry: queue depth (read from Redis at scrape
// time), attempt outcomes, attempt duration and how late attempts start.
import { Counter, Gauge, Histogram } from 'prom-client'
import { registry } from '../lib/metrics'
import { queueDepth } from './queue'

export const webhookQueueDepth = new Gauge({
	name: 'webhook_queue_depth',
	help: 'Webhook deliveries scheduled in Redis, by state (due = waiting, inflight = claimed)',
	labelNames: ['state'],
	registers: [registry],
	async collect() {
		const depth = await queueDepth().catch(() => null)
		if (!depth) return
		this.set({ state: 'due' }, depth.due)
		this.set({ state: 'inflight' }, depth.inflight)
	},
})

export const webhookAttempts = new Counter({
	name: 'webhook_attempts_total',
	help: 'Webhook delivery attempts by outcome (delivered, retry, exhausted, discarded)',
	labelNames: ['outcome'],
	registers: [registry],
})

export const webhookAttemptDuration = new Histogram({
	name: 'webhook_attempt_duration_seconds',
	help: 'Time from connect to the receiver answering (or failing)',
	buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
	registers: [registry],
})

export const webhookLateness = new Histogram({
	name: 'webhook_start_lateness_seconds',
	help: 'How long after its due time an attempt was claimed, by kind (first or retry)',
	labelNames: ['kind'],
	buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
	registers: [registry],
})
