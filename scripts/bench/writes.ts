// Write benchmark (issue 17): what posting, liking and app launch cost, and what
// sustained writing does to feed reads. Everything through HTTP to one server process
// running the app and the worker (scripts/bench/writes-server.ts), 16 connections,
// against baselines measured in the same run: a bare Elysia server in its own process
// (bare-server.ts, the ceiling of every read and initiate row, sampled in each of their
// rounds), and the same 16 connections doing one-row INSERT transactions straight to
// Postgres through the same driver (the baseline of every write row). Own database
// plaza_bench_writes and Redis db 11 (fresh each run). The community is the one most
// posts are written in: 10 topics, connections on, each of 64 writers with 16
// connections; posts are written plain and, in a row of their own, into 1–2 topics
// (a transaction that locks the topics' rows, a slower path).
// The write rows (with their INSERT baseline), the universal rows and the initiate rows
// (with their bare-server sample) run in BENCH_ROUNDS=3 rounds, alternating, and the
// table shows each row's median round with every round's ratio beside it.
// Run: npm run bench:writes   (BENCH_SECONDS=10 per row, BENCH_SOAK_SECONDS=120;
// BENCH_WARM_SECONDS=2 unmeasured before every row, 0 for none; BENCH_WRITES_ONLY=1
// stops after the post and like rows; BENCH_ROWS=initiate runs only the initiate rounds
// (each with its bare-server sample), without seeding posts; BENCH_ROWS=universal only
// the universal rounds (each with its bare-server sample), read-only and while 100 posts/s are written: an A/B of the
// read path under writes; BENCH_TICKS=1 also logs each row's requests in every second,
// and the soak's p99 of every second)
import autocannon from 'autocannon'

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_writes'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'

const {
	benchLog: log,
	perSecond,
	printCeiling,
	ratio,
	rowOf,
	startBenchServer,
	startCeiling,
} = await import('./harness')
const { insertBaseline } = await import('./insert-baseline')
const { sql } = await import('../../src/lib/db')
const { redis } = await import('../../src/lib/redis')
const {
	apiCaller,
	createPosts,
	freshProject,
	signInWriters,
	topicsAndConnections,
	topicsOf,
	writeEvery,
} = await import('./writes-seed')

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 120)
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const WRITES_ONLY = process.env.BENCH_WRITES_ONLY === '1'
const INITIATE_ONLY = process.env.BENCH_ROWS === 'initiate'
const UNIVERSAL_ONLY = process.env.BENCH_ROWS === 'universal'
const TICKS = process.env.BENCH_TICKS === '1'
const CONNECTIONS = 16
const USERS = 64
const SEED_POSTS = 1000
const NEW_POSTS = 3000
const universal = '/feed/universal?page=1&page_size=20'

type Row = import('./harness').Row

const project = await freshProject()
const ceiling = await startCeiling()
const { child, port } = await startBenchServer('scripts/bench/writes-server.ts')
const base = `http://127.0.0.1:${port}`
log(`server on port ${port}, ${CONNECTIONS} connections, ${SECONDS} s per row`)
const call = apiCaller(() => base)

const apiKey = { 'x-api-key': project.api_key }
const users = await signInWriters(call, project.api_key, USERS)
const auth = (i: number) => ({ authorization: `Bearer ${users[i % USERS]?.token}` })
const viewer = auth(USERS - 1)

const topicIds = INITIATE_ONLY ? [] : await topicsAndConnections(() => base, project.api_key, users)
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
 * autocannon for SECONDS with 16 connections; `onLatency` gets each response's latency.
 * Every row, writes too, first runs WARM_SECONDS unmeasured, as the other benches do:
 * a path's first seconds in a new server pay its JIT and, on each pooled Postgres
 * connection, the first parse and plan of each of its statements. Before that, the
 * tables are analyzed, as autovacuum would have done by then: where it is off (this
 * machine's Postgres), the plans cached on the pool's connections while the tables
 * were small stay in use as they grow (initiate's Postgres CPU a launch grew 4× over
 * a run).
 */
async function load(
	name: string,
	request: LoadRequest,
	seconds = SECONDS,
	onLatency?: (ms: number) => void,
): Promise<Row> {
	await sql`analyze`
	if (WARM_SECONDS > 0) await cannon(request, WARM_SECONDS)
	const instance = cannon(request, seconds)
	if (onLatency)
		instance.on('response', (_c: unknown, _s: number, _b: number, ms: number) => onLatency(ms))
	const ticks = TICKS && perSecond(instance)
	const row = rowOf(name, await instance)
	if (ticks) log(`${name}, requests per second: ${ticks.join(' ')}`)
	return row
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

/** The write rows' baseline, measured in their round. */
const baselineRow = () => insertBaseline(CONNECTIONS, SECONDS, WARM_SECONDS)

/** A sample of the bare server at the rows' 16 connections, after the same `analyze` as every row. */
async function bareRow(): Promise<Row> {
	await sql`analyze`
	return ceiling.measure(CONNECTIONS, SECONDS)
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

type Line = { row: Row; over?: Row; note?: string }
const rows: Line[] = []
// Initiate's callers, across rounds: returning users in turn, and a new id per first launch.
let returningCalls = 0
let firstCalls = 0
try {
	if (INITIATE_ONLY) await inRounds(initiateRound)
	else if (UNIVERSAL_ONLY) await inRounds(universalRound)
	else await writeAndReadRows()
	const [{ marks }] = (await sql`select count(*)::int as marks from feed_marks`) as any
	console.log(`feed marks left unconfirmed at the end: ${marks}`)
} finally {
	printRows()
	ceiling.stop()
	child.kill()
	await sql.end()
	redis.disconnect()
}

/**
 * Runs `round` ROUNDS times, one after another. For each line it gives, the table keeps
 * the round of median ratio (median rate for a line without one) and notes every
 * round's: on two shared cores a row's rate drifts by a third within a run, so one
 * pair of rows cannot tell 0.30 from 0.35. Each ratio is over a baseline measured in
 * its own round.
 */
async function inRounds(round: () => Promise<Line[]>) {
	const all: Line[][] = []
	for (let r = 1; r <= ROUNDS; r++) {
		all.push(await round())
		if (ROUNDS > 1) log(`round ${r} of ${ROUNDS} done`)
	}
	const score = (l: Line) => (l.over ? l.row.rps / l.over.rps : l.row.rps)
	for (const [i, first] of (all[0] ?? []).entries()) {
		const lines = all.map((ls) => ls[i] ?? first)
		const median = [...lines].sort((a, b) => score(a) - score(b))[Math.floor(lines.length / 2)]
		const byRound =
			ROUNDS > 1 &&
			`rounds ${lines.map((l) => (l.over ? score(l).toFixed(3) : l.row.rps)).join(' / ')}, p99 ${lines.map((l) => l.row.p99).join(' / ')}`
		const notes = [...new Set(lines.map((l) => l.note).filter(Boolean))]
		rows.push({ ...(median ?? first), note: [byRound, ...notes].filter(Boolean).join('; ') })
	}
}

async function writeAndReadRows() {
	let n = 0
	let m = 0
	let k = 0
	const hot = postIds[0] as string
	await inRounds(async () => {
		const baseline = await baselineRow()
		const posts = await load('POST /feed/post, no topics', {
			method: 'POST',
			path: '/feed/post',
			body: JSON.stringify({ text: 'a post from the bench' }),
			setup: rotating(() => ({ path: '/feed/post', headers: auth(n++) })),
		})
		const topicPosts = await load('POST /feed/post, 1–2 of 10 topics', {
			method: 'POST',
			path: '/feed/post',
			setup: (request) => {
				const i = m++
				request.headers = { ...request.headers, ...auth(i) }
				request.body = JSON.stringify({
					text: 'a post into topics from the bench',
					topic_ids: topicsOf(topicIds, i),
				})
				return request
			},
		})
		const spread = await load('like/unlike, spread over posts', {
			method: 'PUT',
			path: '/',
			setup: rotating(() => {
				const i = k++
				return { path: `/feed/post/${postIds[(i * 7919) % postIds.length]}/like`, headers: auth(i) }
			}),
		})
		const spreadCounts = `counts wrong afterwards: ${await countsExact()}`
		const oneToggles = await load('like/unlike, all on one post', {
			method: 'PUT',
			path: `/feed/post/${hot}/like`,
			setup: rotating(() => ({ path: `/feed/post/${hot}/like`, headers: auth(k++) })),
		})
		return [
			{ row: baseline },
			{ row: posts, over: baseline },
			{ row: topicPosts, over: baseline },
			{ row: spread, over: baseline, note: spreadCounts },
			{ row: oneToggles, over: baseline, note: `counts wrong afterwards: ${await countsExact()}` },
		]
	})
	if (WRITES_ONLY) return
	await inRounds(universalRound)
	await personalisedRows()
	await soakRow()
	await inRounds(initiateRound)
}

/** Universal page 1 read-only, then while 100 posts a second are written. */
async function universalRound(): Promise<Line[]> {
	const roundBare = await bareRow()
	const readOnly = await load('universal page 1, read-only', { path: universal, headers: viewer })
	const writer = writeEvery(call, auth, 10)
	const whileWriting = await load('universal page 1, 100 posts/s', {
		path: universal,
		headers: viewer,
	})
	const wrote = writer.stop()
	return [
		{ row: roundBare },
		{ row: readOnly, over: roundBare },
		{
			row: whileWriting,
			over: readOnly,
			note: `${wrote.written} posts written, ${wrote.failed} failed`,
		},
	]
}

async function personalisedRows() {
	const personalised = '/feed/personalised?page=1&page_size=20'
	await call('GET', `${personalised}&should_reorder=true`, viewer)
	const bare = await bareRow()
	rows.push({ row: bare })
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
}

/** Two minutes of reads while 100 posts a second are written: the p99 of every second. */
async function soakRow() {
	const bySecond = new Map<number, number[]>()
	const soakStart = performance.now()
	const soakWriter = writeEvery(call, auth, 10)
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
	const eachSecond = [...bySecond].map(([second, l]) => ({ second, p99: p99Of(l), n: l.length }))
	if (TICKS)
		log(
			`soak, p99 ms of each second: ${eachSecond.map((s) => `${s.second}:${Math.round(s.p99)}`).join(' ')}`,
		)
	const bySecondP99 = eachSecond.filter((s) => s.n > 20).sort((a, b) => a.p99 - b.p99)
	const median = bySecondP99[Math.floor(bySecondP99.length / 2)]?.p99 ?? 0
	const worst = bySecondP99[bySecondP99.length - 1] ?? { second: 0, p99: 0 }
	rows.push({
		row: soak,
		// Which second was the worst: the first one opens the run's connections.
		note: `one-second p99: median ${Math.round(median)} ms, worst ${Math.round(worst.p99)} ms in second ${worst.second} (${(worst.p99 / Math.max(median, 1)).toFixed(1)}x); ${soakWrote.written} posts written, ${soakWrote.failed} failed`,
	})
}

function p99Of(latencies: number[]): number {
	return latencies.sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)] ?? 0
}

/**
 * App launch, over a bare-server sample measured in the same round: the seeded users again
 * (returning), then a new customer id per call.
 */
async function initiateRound(): Promise<Line[]> {
	const roundBare = await bareRow()
	const returning = await load('POST /sdk/initiate, returning', {
		method: 'POST',
		path: '/sdk/initiate',
		headers: apiKey,
		setup: (request) => {
			const user = users[returningCalls++ % USERS]
			request.body = JSON.stringify({ user_unique_id: user?.uniqueId, user_name: 'Returning' })
			return request
		},
	})
	const firstTime = await load('POST /sdk/initiate, first time', {
		method: 'POST',
		path: '/sdk/initiate',
		headers: apiKey,
		setup: (request) => {
			request.body = JSON.stringify({
				user_unique_id: `new-${Date.now()}-${firstCalls++}`,
				user_name: 'New',
			})
			return request
		},
	})
	return [
		{ row: roundBare },
		{ row: returning, over: roundBare },
		{ row: firstTime, over: roundBare },
	]
}

function printRows() {
	const pad = (v: string | number, w: number) => String(v).padStart(w)
	console.log(
		`\nwrites benchmark: ${CONNECTIONS} connections, ${SECONDS} s per row after ${WARM_SECONDS} s unmeasured, same run; a row measured in rounds shows its median round`,
	)
	console.log(
		`${'case'.padEnd(40)}${pad('per s', 8)}${pad('p50', 6)}${pad('p99', 6)}${pad('errors', 8)}  ratio`,
	)
	for (const { row, over, note } of rows) {
		// The rate beside the name: a median round's baseline is its own round's sample,
		// not necessarily the one shown on the baseline's line.
		const share = over ? `${ratio(row, over)} of ${over.name} (${over.rps}/s)` : ''
		console.log(
			`${row.name.padEnd(40)}${pad(row.rps, 8)}${pad(row.p50, 6)}${pad(row.p99, 6)}${pad(row.errors, 8)}  ${share}${note ? `; ${note}` : ''}`,
		)
	}
	printCeiling(ceiling)
}
