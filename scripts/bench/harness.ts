// What the HTTP benchmarks share: start a bench server script in a child process,
// measure one path with autocannon (warm-up, then a timed run), the ceiling every ratio
// is over (a bare Elysia server in its own process, bare-server.ts, loaded by the same
// autocannon in the same run), and the table with each row's ratio over that ceiling.
import { resolve } from 'node:path'
import autocannon, { type Result } from 'autocannon'

export interface Row {
	name: string
	rps: number
	p50: number
	p99: number
	errors: number
}

export const benchLog = (msg: string) => console.error(`[bench] ${msg}`)

/**
 * The requests each second of an autocannon run, filled as it runs (BENCH_TICKS=1 in
 * the write benches): whether a row's rate is steady or climbs out of a slow start.
 */
export function perSecond(instance: {
	on: (event: 'tick', f: (t: { counter: number }) => void) => void
}) {
	const counts: number[] = []
	instance.on('tick', ({ counter }) => counts.push(counter))
	return counts
}

/**
 * Spawns `script` (which prints `listening <port>`) and returns the port and the child.
 * BENCH_SERVER_FLAGS go to bun (`--cpu-prof --cpu-prof-md`, say); the child exits on
 * SIGTERM through process.exit, so a profile it was asked for is written.
 */
export async function startBenchServer(script: string, serverFlags = true) {
	const flags = serverFlags
		? (process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])
		: []
	const entry = `process.on('SIGTERM', () => process.exit(0)); await import(${JSON.stringify(resolve(script))})`
	const child = Bun.spawn([process.execPath, ...flags, '-e', entry], {
		env: { ...process.env },
		stdout: 'pipe',
		stderr: 'inherit',
	})
	const reader = child.stdout.getReader()
	let text = ''
	while (!/listening (\d+)/.test(text)) {
		const { value, done } = await reader.read()
		if (done) throw new Error(`${script} exited before listening`)
		text += new TextDecoder().decode(value)
	}
	return { child, port: Number(/listening (\d+)/.exec(text)?.[1]) }
}

export interface LoadOptions {
	port: number
	token: string
	connections: number
	seconds: number
}

/** The table row of one autocannon result (logged as it is made). */
export function rowOf(name: string, result: Result): Row {
	const row = {
		name,
		rps: Math.round(result.requests.average),
		p50: result.latency.p50,
		p99: result.latency.p99,
		errors: result.errors + result.timeouts + result.non2xx,
	}
	benchLog(`${name}: ${row.rps} req/s p50 ${row.p50} ms p99 ${row.p99} ms errors ${row.errors}`)
	return row
}

/** Seconds of load before each measured run, unmeasured (BENCH_WARM_SECONDS, 2; 0 for none). */
export const warmSeconds = Number(process.env.BENCH_WARM_SECONDS ?? 2)

/** Checks the path answers 200, warms up for `warmSeconds`, then measures for `seconds`. */
export async function measure(options: LoadOptions, name: string, path: string): Promise<Row> {
	const url = `http://127.0.0.1:${options.port}${path}`
	const headers = { authorization: `Bearer ${options.token}` }
	const check = await fetch(url, { headers })
	if (check.status !== 200)
		throw new Error(`${path} answered ${check.status}: ${await check.text()}`)
	const { connections } = options
	if (warmSeconds > 0) await autocannon({ url, connections, duration: warmSeconds, headers })
	const result = await autocannon({ url, connections, duration: options.seconds, headers })
	return rowOf(name, result)
}

/**
 * Like measure(), with autocannon request hooks: `setupRequest` may change each
 * request (another viewer's token), `onResponse` sees each answer's body.
 */
export async function measureWith(
	options: Omit<LoadOptions, 'token'>,
	name: string,
	path: string,
	hooks: {
		setupRequest?: (request: { headers: Record<string, string> }) => unknown
		onResponse?: (status: number, body: string) => void
	},
): Promise<Row> {
	const url = `http://127.0.0.1:${options.port}${path}`
	const run = (duration: number) =>
		(autocannon as unknown as (o: unknown) => Promise<any>)({
			url,
			connections: options.connections,
			duration,
			requests: [{ method: 'GET', ...hooks }],
		})
	if (warmSeconds > 0) await run(warmSeconds)
	const result = await run(options.seconds)
	return rowOf(name, result)
}

/**
 * The ceiling of a bench: bare-server.ts in its own process (no app, no hooks, without
 * BENCH_SERVER_FLAGS), measured by `measure()` (autocannon in this bun process, the
 * client of every row) at the connections of the rows it is the ceiling of. A bench
 * samples it in every round, between its rows, so drift on a shared machine hits both;
 * `samples` keeps every sample for the ceiling line.
 */
export async function startCeiling() {
	const { child, port } = await startBenchServer('scripts/bench/bare-server.ts', false)
	const samples: Row[] = []
	return {
		port,
		samples,
		/** One sample at `connections` for `seconds` (after the warm-up every row has). */
		async measure(connections: number, seconds: number, name = BARE): Promise<Row> {
			const row = await measure({ port, token: 'none', connections, seconds }, name, '/bench/bare')
			samples.push(row)
			return row
		},
		stop() {
			child.kill()
		},
	}
}
export type Ceiling = Awaited<ReturnType<typeof startCeiling>>

/** The ceiling's row name: every ratio printed is over this row. */
export const BARE = 'bare server (own process)'

/** `row` over `over` as a ratio (0.214), or '' / 'n/a' without a baseline that answered. */
export function ratio(row: Row, over?: Row): string {
	if (!over) return ''
	return over.rps > 0 ? (row.rps / over.rps).toFixed(3) : 'n/a'
}

/** The line under a table that says what the ceiling was and how it moved within the run. */
export function printCeiling(ceiling: Ceiling) {
	const rates = ceiling.samples.map((s) => s.rps)
	console.log(
		`ceiling: ${BARE}, scripts/bench/bare-server.ts under autocannon on bun (the client of every row), sampled ${rates.length}x between the rows: ${rates.join(' / ')} req/s; every ÷bare is over a sample of this run`,
	)
}

const pad = (value: string | number, width: number) => String(value).padStart(width)

export const printHeader = () =>
	console.log(
		`${'case'.padEnd(44)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('÷bare', 8)}${pad('÷base', 8)}`,
	)

/**
 * One table line; with `bare` the row's ratio over the bare server, with `baseline`
 * its ratio over that row (a plain-Postgres page, say: >1 is faster than it).
 */
export function printRow(row: Row, bare?: Row, baseline?: Row) {
	console.log(
		`${row.name.padEnd(44)}${pad(row.rps, 9)}${pad(row.p50, 8)}${pad(row.p99, 8)}${pad(row.errors, 8)}${pad(ratio(row, bare), 8)}${pad(ratio(row, baseline), 8)}`,
	)
}
