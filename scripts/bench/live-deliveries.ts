// Row `deliveries`: the sustained deliveries per second (one event to one connection)
// of two api processes. BENCH_CLIENTS WebSockets (10,000) follow either ONE room (each
// event goes to every client) or many (clients / 10 rooms, each event to 10 clients).
// For each layout the offered rate climbs through BENCH_DELIVERY_STEPS deliveries/s
// (25k … 400k), BENCH_STEP_SECONDS (5) a step; a step is sustained when every delivery
// arrived within 3 s of its end and p99 commit → receipt stayed ≤ 1 s (not falling
// behind). The climb stops at the first step not sustained. The CPU each process used
// in the step says which was the bottleneck (the clients are one bun process).
import './live-env'
import { liveScopes } from '../../src/live'
import { connectAll } from './live-client'
import {
	benchLog,
	community,
	cpuSeconds,
	envNumber,
	fmt,
	httpBase,
	type Member,
	makeRooms,
	PER_USER,
	pct,
	pick,
	publishAtRate,
	roomClients,
	row,
	settle,
	sql,
	startApis,
	stopAll,
	wsBase,
} from './live-common'

const CLIENTS = envNumber('BENCH_CLIENTS', 10_000)
const STEP_SECONDS = envNumber('BENCH_STEP_SECONDS', 5)
const STEPS = (process.env.BENCH_DELIVERY_STEPS ?? '25000,50000,100000,150000,200000,300000,400000')
	.split(',')
	.map(Number)

const { communityId, members } = await community('deliveries')
const apis = await startApis(2)
try {
	const [cm] = await members(1, 'cm')
	const manyRooms = Math.max(1, Math.round(CLIENTS / 10))
	const rooms = await makeRooms(httpBase(pick(apis, 0)), cm as Member, manyRooms)
	const readers = await members(Math.ceil(CLIENTS / PER_USER))
	const results: string[] = []
	let best = 0
	for (const layout of [1, manyRooms]) {
		const name = layout === 1 ? 'one scope' : `${fmt(layout)} scopes`
		const sustained = await climb(layout, name)
		best = Math.max(best, sustained)
		results.push(`${name}: ${fmt(sustained)}/s`)
	}
	row(
		'deliveries per second, 2 api processes',
		'≥ 50,000',
		`sustained ${results.join(', ')} (${fmt(CLIENTS)} clients in one bun process)`,
		best >= 50_000,
	)

	/** Connects the clients over `layout` rooms, climbs the steps; the best sustained rate. */
	async function climb(layout: number, name: string): Promise<number> {
		let delivered = 0
		let latencies: number[] = []
		const clients = roomClients(CLIENTS, readers, rooms, layout, {
			onEvent: (_c, e) => {
				delivered++
				latencies.push(Date.now() - e.at)
			},
		})
		await connectAll(clients, (c) => wsBase(pick(apis, c.n % 2)), benchLog)
		const perEvent = CLIENTS / layout
		let sustained = 0
		for (const offered of STEPS) {
			delivered = 0
			latencies = []
			const cpu = await Promise.all(apis.map((p) => cpuSeconds(p.proc.pid)))
			const mine = process.cpuUsage()
			const { sent, seconds } = await publishAtRate(offered / perEvent, STEP_SECONDS, (k) =>
				liveScopes.chatroom(communityId, pick(rooms, k % layout)),
			)
			const expected = sent * perEvent
			const complete = await settle(() => delivered >= expected, 3000)
			const used = await Promise.all(
				apis.map((p, i) => cpuSeconds(p.proc.pid).then((c) => c - pick(cpu, i))),
			)
			const client = process.cpuUsage(mine)
			latencies.sort((a, b) => a - b)
			const p99 = pct(latencies, 0.99)
			const rate = delivered / seconds
			const share = (s: number) => `${Math.round((s / seconds) * 100)}%`
			benchLog(
				`${name}, offered ${fmt(offered)}/s: ${fmt(rate)}/s, ${fmt(delivered)} of ${fmt(expected)}, p50 ${pct(latencies, 0.5)} ms p99 ${p99} ms; CPU of a core: apis ${used.map(share).join(' ')}, clients+publisher ${share((client.user + client.system) / 1e6)}`,
			)
			if (!complete || p99 > 1000) break
			sustained = rate
		}
		for (const c of clients) c.close()
		await Bun.sleep(1000)
		return sustained
	}
} catch (error) {
	console.error(error)
	process.exitCode = 1
} finally {
	await stopAll(apis)
	await sql.end({ timeout: 5 })
	process.exit(process.exitCode ?? 0)
}
