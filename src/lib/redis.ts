// Redis: one shared command client. Written against ioredis' common interface so a
// Cluster client (REDIS_CLUSTER_NODES) replaces it; every key is hash-tagged
// (see timelines/keys.ts), so no command spans two slots.
import Redis, { Cluster } from 'ioredis'
import { config } from '../config'
import { log } from './log'

export type RedisClient = Redis | Cluster

export function createRedis(): RedisClient {
	const client = config.REDIS_CLUSTER_NODES
		? new Cluster(
				config.REDIS_CLUSTER_NODES.split(',').map((hostPort) => {
					const [host, port] = hostPort.split(':')
					return { host, port: Number(port) }
				}),
				{ enableReadyCheck: true, enableAutoPipelining: true },
			)
		: new Redis(config.REDIS_URL, {
				// A Redis restart (a second or two) costs the requests of that moment latency,
				// not errors: commands wait in the offline queue while ioredis reconnects after
				// 100, 200, … 900 ms and fail only after the 9th try (~4.5 s); onError answers
				// that 503 (isRedisUnavailable). The soak (scripts/soak.ts) restarts Redis.
				maxRetriesPerRequest: 8,
				retryStrategy: (times) => Math.min(times * 100, 1000),
				enableAutoPipelining: true,
			})
	// Without a listener ioredis prints "Unhandled error event" on every reconnect try;
	// /ready reports the outage, the log gets a JSON line.
	client.on('error', (error: Error) => log.warn({ err: error.message }, 'redis connection error'))
	return client
}

export const redis = createRedis()

export async function pingRedis(): Promise<boolean> {
	try {
		const answer = await Promise.race([
			redis.ping(),
			new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 1000)),
		])
		return answer === 'PONG'
	} catch {
		return false
	}
}
