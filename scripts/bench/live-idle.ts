// Row `idle`: BENCH_IDLE idle WebSockets (20,000), each following one of 100 rooms, held
// by ONE api process; its RSS growth per connection. A connection is an open file on
// both ends, so the count is capped at the open-files limit less 200 (the process's own
// files), and the clients are split over child processes (live-holder.ts) of at most
// 10,000 each. RSS (VmRSS) is read after a warm-up of 1,000 connections opened and
// closed, then with every connection held, each time after a full GC (SIGUSR2, see
// live-api.ts) and 3 s of settling.
import './live-env'
import { unlinkSync } from 'node:fs'
import { connectAll, LiveClient } from './live-client'
import {
	benchLog,
	community,
	envNumber,
	fileLimit,
	fmt,
	httpBase,
	type Member,
	makeRooms,
	PER_USER,
	pick,
	row,
	rss,
	sql,
	startApis,
	stopAll,
	wsBase,
} from './live-common'

const WANTED = envNumber('BENCH_IDLE', 20_000)
const ROOMS = 100
const PER_HOLDER = 10_000
const limit = await fileLimit()
const COUNT = Math.min(WANTED, limit - 200)
if (COUNT < WANTED)
	benchLog(`${fmt(WANTED)} wanted, ${fmt(COUNT)} held: the open-files limit is ${fmt(limit)}`)

const { members } = await community('idle')
const [api] = await startApis(1)
if (!api) throw new Error('no api process')
const holders: ReturnType<typeof Bun.spawn>[] = []
const settled = async () => {
	api.proc.kill('SIGUSR2')
	await Bun.sleep(3000)
	return rss(api.proc.pid)
}
/** The api's own count of open WebSockets (its /metrics). */
const openSockets = async () => {
	const text = await (await fetch(`${httpBase(api)}/metrics`)).text()
	return Number(/live_connections\{transport="ws"\} (\d+)/.exec(text)?.[1] ?? -1)
}
try {
	const [cm] = await members(1, 'cm')
	const rooms = await makeRooms(httpBase(api), cm as Member, ROOMS)
	const readers = await members(Math.ceil(COUNT / PER_USER))
	const spec = (n: number) => ({
		token: pick(readers, Math.floor(n / PER_USER)).token,
		scope: `chatroom:${pick(rooms, n % ROOMS)}`,
	})

	benchLog('warm-up: 1,000 connections opened and closed')
	const warm = Array.from(
		{ length: 1000 },
		(_, n) => new LiveClient(n, spec(n).token, [spec(n).scope]),
	)
	await connectAll(warm, () => wsBase(api), benchLog)
	for (const c of warm) c.close()
	await Bun.sleep(2000)
	const before = await settled()

	const held: Promise<string>[] = []
	for (let from = 0; from < COUNT; from += PER_HOLDER) {
		const clients = Array.from({ length: Math.min(PER_HOLDER, COUNT - from) }, (_, k) =>
			spec(from + k),
		)
		const file = `/tmp/plaza-bench-live-holder-${process.pid}-${from}.json`
		await Bun.write(file, JSON.stringify({ base: wsBase(api), clients }))
		const child = Bun.spawn([process.execPath, 'scripts/bench/live-holder.ts', file], {
			stdout: 'pipe',
			stderr: 'inherit',
		})
		holders.push(child)
		held.push(firstLine(child.stdout).finally(() => unlinkSync(file)))
	}
	benchLog(`holders: ${(await Promise.all(held)).join(', ')}`)
	const after = await settled()
	const open = await openSockets()
	const perConnection = (after - before) / open / 1024
	row(
		'idle connections held by one api process',
		'≥ 20,000 at ≤ 15 KB RSS each',
		`${fmt(open)} held${COUNT < WANTED ? ` (capped by the open-files limit ${fmt(limit)})` : ''}; RSS ${fmt(before / 2 ** 20)} → ${fmt(after / 2 ** 20)} MB: ${perConnection.toFixed(1)} KB each`,
		open >= 20_000 && perConnection <= 15,
	)
} catch (error) {
	console.error(error)
	process.exitCode = 1
} finally {
	for (const h of holders) h.kill('SIGKILL')
	await stopAll([api])
	await sql.end({ timeout: 5 })
	process.exit(process.exitCode ?? 0)
}

/** The first line a child prints (it says it holds its connections). */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
	let text = ''
	for await (const chunk of stream) {
		text += new TextDecoder().decode(chunk)
		if (text.includes('\n')) return text.slice(0, text.indexOf('\n'))
	}
	throw new Error(`a holder ended before holding its connections: ${text}`)
}
