// Write benchmark (issue 17): what posting, liking and app launch cost, and what
// sustained writing does to feed reads. Everything through HTTP to one server process
// running the app and the worker (scripts/bench/writes-server.ts), 16 connections,
// against baselines measured in the same run: the bare route, and the same 16
// connections doing one-row INSERT transactions straight to Postgres through the same
// driver. Own database plaza_bench_writes and Redis db 11 (fresh each run).
// Run: npm run bench:writes   (BENCH_SECONDS=10 per row, BENCH_SOAK_SECONDS=120;
// BENCH_WRITES_ONLY=1 stops after the post and like rows; BENCH_ROWS=initiate runs only
// the bare route and the two initiate rows, without seeding posts; BENCH_ROWS=universal
// only the bare route and the universal rows read-only and while 100 posts/s are
// written, twice each, alternating: an A/B of the read path under writes)
import autocannon from 'autocannon'

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_writes'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'

const { benchLog: log, rowOf, startBenchServer } = await import('./harness')
const { sql } = await import('../../src/lib/db')
const { redis } = await import('../../src/lib/redis')
const { apiCaller, createPosts, freshProject, signInWriters } = await import('./writes-seed')

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 120)
const WRITES_ONLY = process.env.BENCH_WRITES_ONLY === '1'
const INITIATE_ONLY = process.env.BENCH_ROWS === 'initiate'
const UNIVERSAL_ONLY = process.env.BENCH_ROWS === 'universal'
const CONNECTIONS = 16
const USERS = 64
const SEED_POSTS = 1000
const NEW_POSTS = 3000
const universal = '/feed/universal?page=1&page_size=20'

type Row = import('./harness').Row

const project = await freshProject()
const { child, port } = await startBenchServer('scripts/bench/writes-server.ts')
const base = `http://127.0.0.1:${port}`
log(`server on port ${port}, ${CONNECTIONS} connections, ${SECONDS} s per row`)
const call = apiCaller(() => base)

const apiKey = { 'x-api-key': project.api_key }
const users = await signInWriters(call, project.api_key, USERS)
const auth = (i: number) => ({ authorization: `Bearer ${users[i % USERS]?.token}` })
const viewer = auth(USERS - 1)

if (!INITIATE_ONLY) await createPosts(call, auth, SEED_POSTS)
const postIds = (await sql`select id from posts order by id`).map((r) => r.id as string)
log(`seeded ${USERS} users and ${postIds.length} posts`)

type Setup = (request: any) => any

type LoadRequest = {
	method?: string
	path: string
	headers?: Record<string, string>
	body?: string
	setup?: Setup
}

/**
 * autocannon for SECONDS with 16 connections; `onSecond` gets each response's latency by
 * second. A read is warmed up for 2 s first, as the other benches measure.
 */
async function load(
	name: string,
	request: LoadRequest,
	seconds = SECONDS,
	onLatency?: (ms: number) => void,
): Promise<Row> {
	if ((request.method ?? 'GET') === 'GET') await cannon(request, 2)
	const instance = cannon(request, seconds)
	if (onLatency)
		instance.on('response', (_c: unknown, _s: number, _b: number, ms: number) => onLatency(ms))
	return rowOf(name, await instance)
}

function cannon(request: LoadRequest, seconds: number) {
	return (autocannon as any)({
		url: base,
		connections: CONNECTIONS,
		duration: seconds,
		requests: [
			{
				method: request.method ?? 'GET',
				path: request.path,
				headers: { 'content-type': 'application/json', ...request.headers },
				body: request.body,
				...(request.setup ? { setupRequest: request.setup } : {}),
			},
		],
	})
}

/** The baseline: 16 connections, each a one-row INSERT transaction at a time, for SECONDS. */
async function insertBaseline(): Promise<Row> {
	await sql`create table if not exists bench_rows (id bigserial primary key, body text, created_at bigint)`
	const latencies: number[] = []
	const until = performance.now() + SECONDS * 1000
	await Promise.all(
		Array.from({ length: CONNECTIONS }, async () => {
			while (performance.now() < until) {
				const t0 = performance.now()
				await sql.begin(
					(tx) => tx`insert into bench_rows (body, created_at) values ('x', ${Date.now()})`,
				)
				latencies.push(performance.now() - t0)
			}
		}),
	)
	latencies.sort((a, b) => a - b)
	const pct = (p: number) => Math.round(latencies[Math.floor(latencies.length * p)] ?? 0)
	const row = {
		name: 'baseline: one-row INSERT tx',
		rps: Math.round(latencies.length / SECONDS),
		p50: pct(0.5),
		p99: pct(0.99),
		errors: 0,
	}
	log(`${row.name}: ${row.rps}/s p50 ${row.p50} ms p99 ${row.p99} ms`)
	return row
}

/** Creates a post every `everyMs` until stopped (one writer, as a busy community). */
function writeEvery(everyMs: number) {
	let written = 0
	let failed = 0
	let i = 0
	const timer = setInterval(() => {
		call('POST', '/feed/post', auth(i++), { text: `live ${i}` }).then(
			() => written++,
			() => failed++,
		)
	}, everyMs)
	return {
		stop() {
			clearInterval(timer)
			return { written, failed }
		},
	}
}

const rotating =
	(paths: () => { path: string; headers: Record<string, string> }): Setup =>
	(request) => {
		const next = paths()
		request.path = next.path
		request.headers = { ...request.headers, ...next.headers }
		return request
	}

async function countsExact(): Promise<number> {
	const [row] = await sql`
		select count(*)::int as wrong from posts p
		where likes_count <> (select count(*) from post_likes l where l.post_id = p.id)`
	return row?.wrong ?? -1
}

const rows: { row: Row; over?: Row; note?: string }[] = []
try {
	const bare = await load('bare route', { path: '/bench/bare' })
	rows.push({ row: bare })
	if (INITIATE_ONLY) await initiateRows(bare)
	else if (UNIVERSAL_ONLY) for (let i = 0; i < 2; i++) await universalRows(bare)
	else await writeAndReadRows(bare)
	const [{ marks }] = (await sql`select count(*)::int as marks from feed_marks`) as any
	console.log(`feed marks left unconfirmed at the end: ${marks}`)
} finally {
	printRows()
	child.kill()
	await sql.end()
	redis.disconnect()
}

async function writeAndReadRows(bare: Row) {
	const baseline = await insertBaseline()
	rows.push({ row: baseline })

	let n = 0
	const posts = await load('POST /feed/post', {
		method: 'POST',
		path: '/feed/post',
		body: JSON.stringify({ text: 'a post from the bench' }),
		setup: rotating(() => ({ path: '/feed/post', headers: auth(n++) })),
	})
	rows.push({ row: posts, over: baseline })

	let k = 0
	const spread = await load('like/unlike, spread over posts', {
		method: 'PUT',
		path: '/',
		setup: rotating(() => {
			const i = k++
			return { path: `/feed/post/${postIds[(i * 7919) % postIds.length]}/like`, headers: auth(i) }
		}),
	})
	rows.push({
		row: spread,
		over: baseline,
		note: `counts wrong afterwards: ${await countsExact()}`,
	})

	const hot = postIds[0] as string
	const oneToggles = await load('like/unlike, all on one post', {
		method: 'PUT',
		path: `/feed/post/${hot}/like`,
		setup: rotating(() => ({ path: `/feed/post/${hot}/like`, headers: auth(k++) })),
	})
	rows.push({
		row: oneToggles,
		over: baseline,
		note: `counts wrong afterwards: ${await countsExact()}`,
	})
	if (WRITES_ONLY) return
	await readRows(bare)
	await initiateRows(bare)
}

/** Universal page 1 read-only, then while 100 posts a second are written. */
async function universalRows(bare: Row) {
	const readOnly = await load('universal page 1, read-only', { path: universal, headers: viewer })
	rows.push({ row: readOnly, over: bare })
	const writer = writeEvery(10)
	const whileWriting = await load('universal page 1, 100 posts/s', {
		path: universal,
		headers: viewer,
	})
	const wrote = writer.stop()
	rows.push({
		row: whileWriting,
		over: readOnly,
		note: `${wrote.written} posts written, ${wrote.failed} failed`,
	})
}

async function readRows(bare: Row) {
	await universalRows(bare)
	const personalised = '/feed/personalised?page=1&page_size=20'
	await call('GET', `${personalised}&should_reorder=true`, viewer)
	const afterRecompute = await load('personalised page 1, just recomputed', {
		path: personalised,
		headers: viewer,
	})
	rows.push({ row: afterRecompute, over: bare })
	const started = performance.now()
	await createPosts(call, auth, NEW_POSTS, 16)
	log(`${NEW_POSTS} more posts in ${Math.round(performance.now() - started)} ms`)
	// Let the worker finish their events and fan-out first: this row measures the read.
	await Bun.sleep(5000)
	const afterPosts = await load(`personalised page 1, +${NEW_POSTS} posts`, {
		path: personalised,
		headers: viewer,
	})
	rows.push({ row: afterPosts, over: afterRecompute })

	// Two minutes of reads while 100 posts a second are written: the p99 of every second.
	const bySecond = new Map<number, number[]>()
	const soakStart = performance.now()
	const soakWriter = writeEvery(10)
	const soak = await load(
		`universal page 1 over ${SOAK_SECONDS} s of writing`,
		{ path: universal, headers: viewer },
		SOAK_SECONDS,
		(ms) => {
			const second = Math.floor((performance.now() - soakStart) / 1000)
			const list = bySecond.get(second) ?? []
			list.push(ms)
			bySecond.set(second, list)
		},
	)
	const soakWrote = soakWriter.stop()
	const bySecondP99 = [...bySecond]
		.filter(([, l]) => l.length > 20)
		.map(([second, l]) => ({
			second,
			p99: l.sort((a, b) => a - b)[Math.floor(l.length * 0.99)] as number,
		}))
		.sort((a, b) => a.p99 - b.p99)
	const median = bySecondP99[Math.floor(bySecondP99.length / 2)]?.p99 ?? 0
	const worst = bySecondP99[bySecondP99.length - 1] ?? { second: 0, p99: 0 }
	rows.push({
		row: soak,
		// Which second was the worst: the first one opens the run's connections.
		note: `one-second p99: median ${Math.round(median)} ms, worst ${Math.round(worst.p99)} ms in second ${worst.second} (${(worst.p99 / Math.max(median, 1)).toFixed(1)}x); ${soakWrote.written} posts written, ${soakWrote.failed} failed`,
	})
}

/** App launch: the seeded users again (returning), then a new customer id per call. */
async function initiateRows(bare: Row) {
	let r = 0
	const returning = await load('POST /sdk/initiate, returning', {
		method: 'POST',
		path: '/sdk/initiate',
		headers: apiKey,
		setup: (request) => {
			const user = users[r++ % USERS]
			request.body = JSON.stringify({ user_unique_id: user?.uniqueId, user_name: 'Returning' })
			return request
		},
	})
	rows.push({ row: returning, over: bare })
	let f = 0
	const firstTime = await load('POST /sdk/initiate, first time', {
		method: 'POST',
		path: '/sdk/initiate',
		headers: apiKey,
		setup: (request) => {
			request.body = JSON.stringify({
				user_unique_id: `new-${Date.now()}-${f++}`,
				user_name: 'New',
			})
			return request
		},
	})
	rows.push({ row: firstTime, over: bare })
}

function printRows() {
	const pad = (v: string | number, w: number) => String(v).padStart(w)
	console.log(`\nwrites benchmark: ${CONNECTIONS} connections, ${SECONDS} s per row, same run`)
	console.log(
		`${'case'.padEnd(40)}${pad('per s', 8)}${pad('p50', 6)}${pad('p99', 6)}${pad('errors', 8)}  ratio`,
	)
	for (const { row, over, note } of rows) {
		const ratio = over ? `${(row.rps / over.rps).toFixed(3)} of ${over.name}` : ''
		console.log(
			`${row.name.padEnd(40)}${pad(row.rps, 8)}${pad(row.p50, 6)}${pad(row.p99, 6)}${pad(row.errors, 8)}  ${ratio}${note ? `; ${note}` : ''}`,
		)
	}
}
