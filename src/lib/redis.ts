// Redis: one shared command client. Written against ioredis' common interface so a
// Cluster client (REDIS_CLUSTER_NODES) replaces it; every key is hash-tagged
// (see timelines/keys.ts), so no command spans two slots.
import Redis, { Cluster } from 'ioredis'
import { config } from '../config'

export type RedisClient = Redis | Cluster

export function createRedis(): RedisClient {
	if (config.REDIS_CLUSTER_NODES) {
		const nodes = config.REDIS_CLUSTER_NODES.split(',').map((hostPort) => {
			const [host, port] = hostPort.split(':')
			return { host, port: Number(port) }
		})
		return new Cluster(nodes, { enableReadyCheck: true })
	}
	return new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableAutoPipelining: true })
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
