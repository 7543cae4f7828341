// What the HTTP benchmarks share: start a bench server script in a child process,
// measure one path with autocannon (warm-up, then a timed run), print the table.
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
export async function startBenchServer(script: string) {
	const flags = process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []
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

/** Checks the path answers 200, warms up for 2 s, then measures for `seconds`. */
export async function measure(options: LoadOptions, name: string, path: string): Promise<Row> {
	const url = `http://127.0.0.1:${options.port}${path}`
	const headers = { authorization: `Bearer ${options.token}` }
	const check = await fetch(url, { headers })
	if (check.status !== 200)
		throw new Error(`${path} answered ${check.status}: ${await check.text()}`)
	const { connections } = options
	await autocannon({ url, connections, duration: 2, headers })
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
	await run(2)
	const result = await run(options.seconds)
	return rowOf(name, result)
}

const pad = (value: string | number, width: number) => String(value).padStart(width)

export const printHeader = () =>
	console.log(
		`${'case'.padEnd(34)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('b/a', 7)}${pad('b/c', 7)}`,
	)

/** One table line; with `bare` the share of the bare route, with `baseline` the speed-up over it. */
export function printRow(row: Row, bare?: Row, baseline?: Row) {
	const share = bare ? `${Math.round((100 * row.rps) / bare.rps)}%` : ''
	// A baseline too slow to finish a request within the run has no ratio.
	const speedup = !baseline
		? ''
		: baseline.rps > 0
			? `${(row.rps / baseline.rps).toFixed(1)}x`
			: 'n/a'
	console.log(
		`${row.name.padEnd(34)}${pad(row.rps, 9)}${pad(row.p50, 8)}${pad(row.p99, 8)}${pad(row.errors, 8)}${pad(share, 7)}${pad(speedup, 7)}`,
	)
}
