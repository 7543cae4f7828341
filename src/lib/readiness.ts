// What /ready answers, on the api port and on METRICS_PORT alike: Postgres and Redis
// really answer (else 503), and which background jobs keep failing (`jobs_failing`).
// Failing jobs do not make it 503: a failing fan-out must not take every api replica
// out of the load balancer.
import { pingDb } from './db'
import { failingJobs } from './job-health'
import { pingRedis } from './redis'

export async function readiness() {
	const [postgres, redis] = await Promise.all([pingDb(), pingRedis()])
	const ready = postgres && redis
	const jobs_failing = postgres ? await failingJobs() : {}
	return {
		status: ready ? 200 : 503,
		body: {
			success: ready,
			error_message: ready ? null : 'Not ready',
			postgres,
			redis,
			jobs_failing,
		},
	}
}
