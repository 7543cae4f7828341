// Row `cluster`: on a 3-node Redis Cluster of its own (loopback ports
// BENCH_CLUSTER_PORTS, 7401-7403, nothing on disk, stopped at the end), two api
// processes take more and more WebSockets, each following the `me` scope of its own
// member (scopes spread over every master's slots): 1, 10, 100, then BENCH_CLUSTER_SCOPES
// (2,000) in all. At each step `CLIENT LIST` on every master counts the connections
// named after each api process (plaza-live-<pid>, ioredis prefixes it on a cluster);
// then one event per scope checks that every subscription delivers.
import './live-env'
import Redis from 'ioredis'
import { startRedisCluster } from '../redis-cluster'

const PORTS = (process.env.BENCH_CLUSTER_PORTS ?? '7401,7402,7403').split(',').map(Number)
const SCOPES = Number(process.env.BENCH_CLUSTER_SCOPES ?? 2000)

const cluster = await startRedisCluster(PORTS)
process.env.REDIS_CLUSTER_NODES = cluster.nodes
const { liveScopes, publishLive } = await import('../../src/live')
const { connectAll, LiveClient } = await import('./live-client')
const common = await import('./live-common')
const { benchLog, fmt, pick, row, settle, sql, stopAll, wsBase } = common

const masters = PORTS.map((port) => new Redis({ host: '127.0.0.1', port, lazyConnect: true }))
const apis = await common.startApis(2)
try {
	const { communityId, members } = await common.community('cluster')
	const readers = await members(SCOPES)
	let received = 0
	const clients = readers.map(
		(r, n) => new LiveClient(n, r.token, ['me'], { onEvent: () => void received++ }),
	)
	/** Per api process, its subscriber connections on each master. */
	const count = async () => {
		const lists = await Promise.all(masters.map((m) => m.client('LIST') as Promise<string>))
		return apis.map((api) =>
			lists.map(
				(list) =>
					list
						.split('\n')
						.filter(
							(l) =>
								l.includes(`plaza-live-${api.proc.pid} `) ||
								l.endsWith(`plaza-live-${api.proc.pid}`),
						).length,
			),
		)
	}
	const steps: string[] = []
	let worst = 0
	let connected = 0
	for (const step of [1, 10, 100, SCOPES].filter(
		(s, i, all) => s <= SCOPES && all.indexOf(s) === i,
	)) {
		await connectAll(clients.slice(connected, step), (c) => wsBase(pick(apis, c.n % 2)), benchLog)
		connected = step
		await Bun.sleep(500)
		const perApi = await count()
		const totals = perApi.map((perMaster) => perMaster.reduce((a, b) => a + b, 0))
		worst = Math.max(worst, ...totals)
		steps.push(
			`${fmt(step)} scope${step > 1 ? 's' : ''}: ${perApi.map((m) => `${m.reduce((a, b) => a + b, 0)} (${m.join('+')})`).join(', ')}`,
		)
		benchLog(`per api process, total (per master): ${steps.at(-1)}`)
	}
	for (const r of readers)
		await publishLive(liveScopes.me(communityId, r.id), { type: 'bench', data: {} })
	const all = await settle(() => received >= SCOPES, 10_000)
	row(
		`3-node cluster: Redis subscriber connections per api process, 2 api processes`,
		`≤ 1 + ${masters.length} masters, whatever the number of scopes`,
		`${steps.join('; ')}; one event per scope: ${fmt(received)} of ${fmt(SCOPES)} delivered`,
		worst <= 1 + masters.length && all,
	)
	for (const c of clients) c.close()
} catch (error) {
	console.error(error)
	process.exitCode = 1
} finally {
	await stopAll(apis)
	for (const m of masters) m.disconnect()
	await sql.end({ timeout: 5 })
	await cluster.stop()
	process.exit(process.exitCode ?? 0)
}
