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
		: new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableAutoPipelining: true })
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
