// Operations: liveness, readiness (Postgres and Redis really answer), Prometheus metrics.
// /ready also names background jobs that keep failing (lib/readiness.ts).
import { Elysia } from 'elysia'
import { registry } from '../../lib/metrics'
import { readiness } from '../../lib/readiness'

export const healthModule = new Elysia({ name: 'health' })
	.get('/health', () => ({ success: true, status: 'ok' }), { detail: { tags: ['operations'] } })
	.get(
		'/ready',
		async ({ set }) => {
			const { status, body } = await readiness()
			set.status = status
			return body
		},
		{ detail: { tags: ['operations'] } },
	)
	.get(
		'/metrics',
		async ({ set }) => {
			set.headers['content-type'] = registry.contentType
			return registry.metrics()
		},
		{ detail: { tags: ['operations'] } },
	)
