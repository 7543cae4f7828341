// METRICS_PORT: a second, tiny HTTP listener with /metrics, /health and /ready for
// processes whose own port serves no HTTP (ROLE=worker), so that a Prometheus scrape
// reaches every process: the webhook attempt counters, fan-out lag and job failures
// are counted inside the worker that did the work. Any role may set it.
import { failure } from './envelope'
import { log } from './log'
import { registry } from './metrics'
import { readiness } from './readiness'

async function answer(request: Request): Promise<Response> {
	const { pathname } = new URL(request.url)
	if (pathname === '/metrics')
		return new Response(await registry.metrics(), {
			headers: { 'content-type': registry.contentType },
		})
	if (pathname === '/health') return Response.json({ success: true, status: 'ok' })
	if (pathname === '/ready') {
		const { status, body } = await readiness()
		return Response.json(body, { status })
	}
	return Response.json(failure('Not found'), { status: 404 })
}

/** Listens on `port` (0 picks a free one, logged) and returns the stop function. */
export function startMetricsServer(port: number): () => Promise<void> {
	const server = Bun.serve({ port, hostname: '0.0.0.0', fetch: answer })
	log.info({ port: server.port }, 'metrics listening')
	return async () => {
		await server.stop()
	}
}
