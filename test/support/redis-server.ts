// A standalone redis-server of one's own on a free loopback port, keeping nothing on
// disk: killing or restarting it (the Redis-restart test, scripts/soak.ts) harms no
// other Redis user. A restart comes back empty, like a Redis that lost everything.
import { createServer } from 'node:net'

export interface RedisServer {
	port: number
	url: string
	/** kills it (SIGKILL unless given) and waits for the exit */
	kill(signal?: NodeJS.Signals): Promise<void>
	/** starts it again on the same port and waits until it answers */
	start(): Promise<void>
}

export function freeLoopbackPort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer()
		server.once('error', reject)
		server.listen(0, '127.0.0.1', () => {
			const port = (server.address() as { port: number }).port
			server.close(() => resolve(port))
		})
	})
}

export async function startRedisServer(): Promise<RedisServer> {
	const port = await freeLoopbackPort()
	let proc: ReturnType<typeof Bun.spawn> | undefined
	const server: RedisServer = {
		port,
		url: `redis://127.0.0.1:${port}/0`,
		async kill(signal = 'SIGKILL') {
			proc?.kill(signal)
			await proc?.exited
		},
		async start() {
			const args = [
				'--port',
				String(port),
				'--bind',
				'127.0.0.1',
				'--save',
				'',
				'--appendonly',
				'no',
			]
			proc = Bun.spawn(['redis-server', ...args], { stdout: 'ignore', stderr: 'inherit' })
			for (let i = 0; i < 200; i++) {
				const ping = Bun.spawnSync(['redis-cli', '-p', String(port), 'ping'])
				if (ping.stdout.toString().trim() === 'PONG') return
				await Bun.sleep(25)
			}
			throw new Error(`redis-server on port ${port} did not answer`)
		},
	}
	await server.start()
	return server
}
