// The live engine's Prometheus series (served by /metrics with the rest of lib/metrics).
import { Counter, Gauge, Histogram } from 'prom-client'
import { registry } from '../lib/metrics'

export const liveConnections = new Gauge({
	name: 'live_connections',
	help: 'Open live connections held by this process',
	labelNames: ['transport'],
	registers: [registry],
})

export const liveDeliveries = new Counter({
	name: 'live_deliveries_total',
	help: 'Live events sent to clients (one per event and connection)',
	registers: [registry],
})

export const liveLag = new Histogram({
	name: 'live_commit_to_send_seconds',
	help: 'From the writer publishing after commit to this process sending the event',
	buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
	registers: [registry],
})

export const livePublishFailures = new Counter({
	name: 'live_publish_failures_total',
	help: 'Live events Redis did not take after their commit',
	registers: [registry],
})
