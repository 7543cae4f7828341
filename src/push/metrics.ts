// Push metrics on the shared registry: sends by outcome and the schedule's depth.
import { Counter, Gauge } from 'prom-client'
import { registry } from '../lib/metrics'
import { queueDepth } from './queue'

export const pushSent = new Counter({
	name: 'push_sent_total',
	help: 'Push deliveries by outcome (sent, retry, failed, token_removed, auth_failing, discarded, unknown)',
	labelNames: ['outcome'],
	registers: [registry],
})

export const pushQueueDepth = new Gauge({
	name: 'push_queue_depth',
	help: 'Push deliveries scheduled in Redis, by state (due = waiting, inflight = claimed)',
	labelNames: ['state'],
	registers: [registry],
	async collect() {
		const depth = await queueDepth().catch(() => null)
		if (!depth) return
		this.set({ state: 'due' }, depth.due)
		this.set({ state: 'inflight' }, depth.inflight)
	},
})
