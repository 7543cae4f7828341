// A throwaway 3-node Redis Cluster on loopback, made from the machine's redis-server
// and redis-cli: for the multi-process test, for `.ci/run` (which runs the feed, graph
// and webhook tests against it) and for `bench:fanout` on a cluster. Nodes listen on
// random ports in 17000-17999 (their cluster bus on port + 10000), keep nothing on
// disk, and are stopped by the pids in their data directory under /tmp.
//   bun run scripts/redis-cluster.ts start      prints `REDIS_CLUSTER_NODES=... CLUSTER_DIR=...`
//   bun run scripts/redis-cluster.ts stop DIR
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RedisClusterHandle {
	/** `127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`, the form REDIS_CLUSTER_NODES takes. */
	nodes: string
	dir: string
	stop(): Promise<void>
}

const NODES = 3

/** Whether redis-server and redis-cli are installed (tests skip loudly without them). */
export function redisServerAvailable(): boolean {
	return Bun.which('redis-server') !== null && Bun.which('redis-cli') !== null
}

function portIsFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer()
		server.once('error', () => resolve(false))
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
	})
}

/** Three consecutive free ports in 17000-17999 whose bus ports (+10000) are free too. */
async function pickPorts(): Promise<number[]> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const base = 17000 + Math.floor(Math.random() * (1000 - NODES))
		const ports = Array.from({ length: NODES }, (_, i) => base + i)
		const free = await Promise.all(
			ports.flatMap((port) => [portIsFree(port), portIsFree(port + 10000)]),
		)
		if (free.every(Boolean)) return ports
	}
	throw new Error('no free ports for a Redis Cluster in 17000-17999')
}

async function run(args: string[]): Promise<string> {
	const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
	const [out, err, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited,
	])
	if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${out}${err}`)
	return out
}

async function startNode(dir: string, port: number): Promise<void> {
	const nodeDir = join(dir, String(port))
	mkdirSync(nodeDir, { recursive: true })
	await run([
		'redis-server',
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--dir',
		nodeDir,
		'--daemonize',
		'yes',
		'--pidfile',
		join(nodeDir, 'redis.pid'),
		'--logfile',
		join(nodeDir, 'redis.log'),
		'--cluster-enabled',
		'yes',
		'--cluster-config-file',
		'nodes.conf',
		'--cluster-node-timeout',
		'2000',
		'--save',
		'',
		'--appendonly',
		'no',
	])
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000) {
	const deadline = Date.now() + timeoutMs
	while (!(await probe().catch(() => false))) {
		if (Date.now() > deadline) throw new Error(`Redis Cluster: timed out waiting for ${what}`)
		await Bun.sleep(100)
	}
}

const cli = (port: number, ...args: string[]) =>
	run(['redis-cli', '-h', '127.0.0.1', '-p', String(port), ...args])

/** Stops the nodes whose pid files are in `dir` and removes it. */
export async function stopRedisCluster(dir: string): Promise<void> {
	if (!existsSync(dir)) return
	for (const entry of new Bun.Glob('*/redis.pid').scanSync(dir)) {
		const pid = Number(readFileSync(join(dir, entry), 'utf8').trim())
		try {
			process.kill(pid, 'SIGKILL')
		} catch {}
	}
	rmSync(dir, { recursive: true, force: true })
}

/**
 * Starts three empty master nodes (on `fixedPorts`, else three free ones), assigns all
 * 16384 slots and waits for cluster_state:ok.
 */
export async function startRedisCluster(fixedPorts?: number[]): Promise<RedisClusterHandle> {
	const dir = mkdtempSync(join(tmpdir(), 'plaza-redis-cluster-'))
	try {
		const ports = fixedPorts ?? (await pickPorts())
		await Promise.all(ports.map((port) => startNode(dir, port)))
		for (const port of ports)
			await waitFor(`node ${port}`, async () => (await cli(port, 'ping')).trim() === 'PONG')
		const addresses = ports.map((port) => `127.0.0.1:${port}`)
		await run([
			'redis-cli',
			'--cluster',
			'create',
			...addresses,
			'--cluster-replicas',
			'0',
			'--cluster-yes',
		])
		for (const port of ports)
			await waitFor('cluster_state:ok', async () =>
				(await cli(port, 'cluster', 'info')).includes('cluster_state:ok'),
			)
		return { nodes: addresses.join(','), dir, stop: () => stopRedisCluster(dir) }
	} catch (error) {
		await stopRedisCluster(dir)
		throw error
	}
}

if (import.meta.main) {
	const [command, dir] = process.argv.slice(2)
	if (command === 'start') {
		const cluster = await startRedisCluster()
		console.log(`REDIS_CLUSTER_NODES=${cluster.nodes} CLUSTER_DIR=${cluster.dir}`)
	} else if (command === 'stop' && dir) {
		await stopRedisCluster(dir)
	} else {
		console.error('usage: bun run scripts/redis-cluster.ts start | stop DIR')
		process.exit(2)
	}
}
