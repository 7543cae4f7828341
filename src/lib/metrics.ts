// Prometheus metrics. Other parts register their own gauges and counters on `registry`.
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client'

export const registry = new Registry()
collectDefaultMetrics({ register: registry })

export const requestDuration = new Histogram({
	name: 'http_request_duration_seconds',
	help: 'HTTP request latency by route',
	labelNames: ['method', 'route', 'status'],
	buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
	registers: [registry],
})
