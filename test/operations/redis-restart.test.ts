// A Redis restart costs the requests of that moment latency, not errors (lib/redis.ts
// rides out a few seconds of reconnection); a longer outage is a 503 in the envelope,
// never a 500. A real plaza process on a redis-server of its own, killed with SIGKILL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity } from '../support/community'
import { type Plaza, spawnPlaza } from '../support/process'
import { type RedisServer, startRedisServer } from '../support/redis-server'

let redis: RedisServer
let plaza: Plaza
let token = ''

const feed = async () => {
	const reply = await fetch(`http://127.0.0.1:${plaza.port}/feed/universal?page=1`, {
		headers: { authorization: `Bearer ${token}` },
	})
	return {
		status: reply.status,
		retryAfter: reply.headers.get('retry-after'),
		body: (await reply.json()) as any,
	}
}

beforeAll(async () => {
	redis = await startRedisServer()
	plaza = await spawnPlaza('api', { REDIS_URL: redis.url })
	const community = await newCommunity('redis-restart')
	const reply = await fetch(`http://127.0.0.1:${plaza.port}/sdk/initiate`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-api-key': community.apiKey },
		body: JSON.stringify({ user_unique_id: 'restart-user', user_name: 'Restart' }),
	})
	token = ((await reply.json()) as any).data.access_token
})
afterAll(async () => {
	await plaza.stop()
	await redis.kill()
})

describe('Redis going away under a running api', () => {
	test('restarted within a second (empty): requests in flight wait and answer 200', async () => {
		expect((await feed()).status).toBe(200) // control: Redis up
		await redis.kill('SIGKILL')
		const during = Array.from({ length: 6 }, () => feed())
		await Bun.sleep(700)
		await redis.start()
		const replies = await Promise.all(during)
		expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200])
		expect((await feed()).status).toBe(200)
	})

	test('gone for longer: 503 with Retry-After in the envelope, then 200 once it is back', async () => {
		await redis.kill('SIGKILL')
		const reply = await feed()
		expect(reply.status).toBe(503)
		expect(reply.retryAfter).toBe('5')
		expect(reply.body).toEqual({
			success: false,
			error_message: 'Service temporarily unavailable, retry shortly',
		})
		await redis.start()
		for (let i = 0; i < 50 && (await feed()).status !== 200; i++) await Bun.sleep(200)
		expect((await feed()).status).toBe(200)
		expect(plaza.stdout.some((line) => line.includes('"unhandled error"'))).toBe(false)
	})
})
