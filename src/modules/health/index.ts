// Operations: liveness, readiness (Postgres and Redis really answer), Prometheus metrics.
import { Elysia } from 'elysia'
import { pingDb } from '../../lib/db'
import { registry } from '../../lib/metrics'
import { pingRedis } from '../../lib/redis'

export const healthModule = new Elysia({ name: 'health' })
	.get('/health', () => ({ success: true, status: 'ok' }), { detail: { tags: ['operations'] } })
	.get(
		'/ready',
		async ({ set }) => {
			const [postgres, redis] = await Promise.all([pingDb(), pingRedis()])
			const ready = postgres && redis
			if (!ready) set.status = 503
			return { success: ready, error_message: ready ? null : 'Not ready', postgres, redis }
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
