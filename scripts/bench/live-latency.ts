// Row `latency`: commit → client receipt with BENCH_RATE events/s (1,000) spread over
// BENCH_CLIENTS WebSockets (10,000) split between two api processes. The clients follow
// BENCH_ROOMS rooms (clients / 10: each event reaches 10 clients, each client gets
// rate / rooms events/s); latency is each event's `at` (the publish after the commit)
// against its arrival, over BENCH_SECONDS (30) after BENCH_WARM_SECONDS (3) unmeasured.
import './live-env'
import { liveScopes } from '../../src/live'
import { connectAll } from './live-client'
import {
	benchLog,
	community,
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
const RATE = envNumber('BENCH_RATE', 1000)
const ROOMS = envNumber('BENCH_ROOMS', Math.max(1, Math.round(CLIENTS / 10)))
const SECONDS = envNumber('BENCH_SECONDS', 30)
const WARM_SECONDS = envNumber('BENCH_WARM_SECONDS', 3)

const { communityId, members } = await community('latency')
const apis = await startApis(2)
try {
	const [cm] = await members(1, 'cm')
	const rooms = await makeRooms(httpBase(pick(apis, 0)), cm as Member, ROOMS)
	const readers = await members(Math.ceil(CLIENTS / PER_USER))
	let measuring = false
	let delivered = 0
	const latencies: number[] = []
	const clients = roomClients(CLIENTS, readers, rooms, ROOMS, {
		onEvent: (_c, e) => {
			if (!measuring) return
			delivered++
			latencies.push(Date.now() - e.at)
		},
	})
	await connectAll(clients, (c) => wsBase(pick(apis, c.n % 2)), benchLog)
	const perRoom = Array.from(
		{ length: ROOMS },
		(_, r) => Math.floor(CLIENTS / ROOMS) + (r < CLIENTS % ROOMS ? 1 : 0),
	)

	benchLog(`warming up: ${RATE} events/s for ${WARM_SECONDS} s, unmeasured`)
	await publishAtRate(RATE, WARM_SECONDS, (k) =>
		liveScopes.chatroom(communityId, pick(rooms, k % ROOMS)),
	)
	await Bun.sleep(1000)
	benchLog(`publishing ${RATE} events/s for ${SECONDS} s`)
	measuring = true
	let expected = 0
	const { sent, seconds } = await publishAtRate(RATE, SECONDS, (k) => {
		expected += pick(perRoom, k % ROOMS)
		return liveScopes.chatroom(communityId, pick(rooms, k % ROOMS))
	})
	await settle(() => delivered >= expected, 10_000)
	measuring = false
	latencies.sort((a, b) => a - b)
	const [p50, p99] = [pct(latencies, 0.5), pct(latencies, 0.99)]
	row(
		`commit → receipt, ${fmt(sent / seconds)} events/s over ${fmt(CLIENTS)} clients (${fmt(ROOMS)} rooms)`,
		'p50 ≤ 10 ms, p99 ≤ 50 ms',
		`p50 ${p50} ms, p99 ${p99} ms, max ${latencies.at(-1)} ms; ${fmt(delivered)} of ${fmt(expected)} deliveries (${fmt(delivered / seconds)}/s)`,
		p50 <= 10 && p99 <= 50 && delivered === expected,
	)
	for (const c of clients) c.close()
} catch (error) {
	console.error(error)
	process.exitCode = 1
} finally {
	await stopAll(apis)
	await sql.end({ timeout: 5 })
	process.exit(process.exitCode ?? 0)
}
