// Where a write's time goes (issue 17): seeds like bench:writes, then runs ONE of its
// write rows against a server started under `bun --cpu-prof --cpu-prof-md` and prints
// the CPU seconds each side spent per request — the bench client (autocannon, this
// process), the server (app and worker), Postgres (every postgres process) and Redis —
// from /proc, beside the wall time. The server's profile (markdown and .cpuprofile) lands
// in BENCH_PROFILE_DIR (.data/profile). On 2 cores all four share the CPU, so CPU per
// request limits the rate, unless they sum to well under 2 (then it waits on something).
// Run: bun run scripts/bench/writes-profile.ts [spread|one|posts|topic-posts|initiate|read|read-writing|writing]
// (BENCH_SECONDS=10 after BENCH_WARM_SECONDS=5 unmeasured; read-writing: universal page 1
// while 100 posts a second are written; writing: the 100 posts a second alone, no
// reads; topic-posts: posts into 1–2 of the community's 10 topics, as bench:writes' row;
// the writers have 16 connections each, as there). BENCH_PROFILE=0 runs the server without the profiler, whose sampling costs
// the server a sixth to two fifths of its rate. BENCH_STATEMENTS=1 also prints the
// row's costliest Postgres statements from
// pg_stat_statements, which Postgres must preload: `alter system set
// shared_preload_libraries = 'pg_stat_statements'`, a restart, and (for plan times)
// `alter system set pg_stat_statements.track_planning = on`; reset both afterwards.
// BENCH_WAITS=1 also prints what the app's Postgres connections were doing while the row
// ran (pg_stat_activity every 10 ms, idle ones left out): on average how many were
// running a statement, waiting for the app inside a transaction (the app's own time
// between round trips), or waiting on the WAL or a lock — the critical path of a batch
// that is one at a time. BENCH_REDIS=1 also prints the Redis commands the row sent, per
// request (INFO commandstats, reset when the row starts: this Redis server's, all dbs).
// BENCH_TICKS=1 also prints the row's requests in every second.
import { readdirSync, readFileSync } from 'node:fs'
import autocannon from 'autocannon'

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_writes'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'

const { benchLog: log, perSecond, rowOf, startBenchServer } = await import('./harness')
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

const ROW = process.argv[2] ?? 'spread'
const PROFILING = process.env.BENCH_PROFILE !== '0'
const STATEMENTS = process.env.BENCH_STATEMENTS === '1'
const WAITS = process.env.BENCH_WAITS === '1'
const REDIS_COMMANDS = process.env.BENCH_REDIS === '1'
const TICKS = process.env.BENCH_TICKS === '1'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 5)
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ?? '.data/profile'
const CONNECTIONS = 16
const USERS = 64
// The like rows' posts, as bench:writes seeds them. Its spread row likes them among
// ~20,000 (its posts row ran first): BENCH_SEED_POSTS=20000 gives the planner that table.
const LIKED_POSTS = 1000
const SEED_POSTS = Number(process.env.BENCH_SEED_POSTS ?? LIKED_POSTS)

if (STATEMENTS) {
	// Checked before any server starts: without the preload, pg_stat_statements_reset() fails.
	const [loaded] =
		await sql`select setting like '%pg_stat_statements%' as yes from pg_settings where name = 'shared_preload_libraries'`
	if (!loaded?.yes) {
		console.error(
			'BENCH_STATEMENTS=1 needs pg_stat_statements in shared_preload_libraries (see the header)',
		)
		process.exit(2)
	}
}
const project = await freshProject()

// Seeding runs against a server without the profiler, so the profile holds the row only.
let server = await startBenchServer('scripts/bench/writes-server.ts')
let base = `http://127.0.0.1:${server.port}`
const call = apiCaller(() => base)
const writers = await signInWriters(call, project.api_key, USERS)
const topicIds = await topicsAndConnections(() => base, project.api_key, writers)
const auth = (i: number) => ({ authorization: `Bearer ${writers[i % USERS]?.token}` })
await createPosts(call, auth, SEED_POSTS)
const postIds = (await sql`select id from posts order by id limit ${LIKED_POSTS}`).map(
	(r) => r.id as string,
)
// As bench:writes before every row: the planner sees the tables as they are.
await sql`analyze`
server.child.kill()
await server.child.exited

process.env.BENCH_SERVER_FLAGS = PROFILING
	? `--cpu-prof --cpu-prof-md --cpu-prof-dir=${PROFILE_DIR}`
	: ''
server = await startBenchServer('scripts/bench/writes-server.ts')
base = `http://127.0.0.1:${server.port}`
log(`seeded; ${PROFILING ? 'profiling' : 'measuring'} row "${ROW}" for ${SECONDS} s`)

/** utime + stime of a process in seconds (clock ticks of 1/100 s). */
function cpuOf(pid: number): number {
	try {
		const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
		return (Number(fields[11]) + Number(fields[12])) / 100
	} catch {
		return 0
	}
}
/** CPU seconds of every process named `comm` (postgres' many, the one redis-server). */
function cpuOfAll(comm: string): number {
	let total = 0
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue
		try {
			if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) total += cpuOf(Number(entry))
		} catch {}
	}
	return total
}
const clientCpu = () => {
	const u = process.cpuUsage()
	return (u.user + u.system) / 1e6
}

let k = 0
const hot = postIds[0] as string
const universal = (r: any) => {
	r.path = '/feed/universal?page=1&page_size=20'
	r.headers = { ...r.headers, ...auth(USERS - 1) }
	return r
}
type Row = {
	method: string
	setup: (r: any) => any
	body?: string
	writing?: boolean
	reads?: false
}
const rows: Record<string, Row> = {
	spread: {
		method: 'PUT',
		setup: (r) => {
			const i = k++
			r.path = `/feed/post/${postIds[(i * 7919) % postIds.length]}/like`
			r.headers = { ...r.headers, ...auth(i) }
			return r
		},
	},
	one: {
		method: 'PUT',
		setup: (r) => {
			r.path = `/feed/post/${hot}/like`
			r.headers = { ...r.headers, ...auth(k++) }
			return r
		},
	},
	posts: {
		method: 'POST',
		body: JSON.stringify({ text: 'a post from the bench' }),
		setup: (r) => {
			r.path = '/feed/post'
			r.headers = { ...r.headers, ...auth(k++) }
			return r
		},
	},
	'topic-posts': {
		method: 'POST',
		setup: (r) => {
			const i = k++
			r.path = '/feed/post'
			r.headers = { ...r.headers, ...auth(i) }
			r.body = JSON.stringify({ text: 'a post into topics', topic_ids: topicsOf(topicIds, i) })
			return r
		},
	},
	// App launch of a returning member, as bench:writes' initiate row (the API key, no token).
	initiate: {
		method: 'POST',
		setup: (r) => {
			const i = k++
			r.path = '/sdk/initiate'
			r.headers = { ...r.headers, 'x-api-key': project.api_key }
			r.body = JSON.stringify({
				user_unique_id: writers[i % USERS]?.uniqueId,
				user_name: 'Returning',
			})
			return r
		},
	},
	read: { method: 'GET', setup: universal },
	'read-writing': { method: 'GET', setup: universal, writing: true },
	writing: { method: 'GET', setup: universal, writing: true, reads: false },
}
const row = rows[ROW]
if (!row) throw new Error(`unknown row ${ROW} (${Object.keys(rows).join(', ')})`)

const cpuNow = () => ({
	client: clientCpu(),
	server: cpuOf(server.child.pid),
	postgres: cpuOfAll('postgres'),
	redis: cpuOfAll('redis-server'),
})
/** The row's requests: autocannon's, or (the writing row, undefined) none but the writer's posts. */
async function load(
	row: Row,
	seconds: number,
	name = ROW,
): Promise<{ n: number; errors: number; ticks: number[] | false } | undefined> {
	if (row.reads === false) {
		await Bun.sleep(seconds * 1000)
		return undefined
	}
	const cannon = (autocannon as any)({
		url: base,
		connections: CONNECTIONS,
		duration: seconds,
		requests: [
			{
				method: row.method,
				path: '/',
				headers: { 'content-type': 'application/json' },
				body: row.body,
				setupRequest: row.setup,
			},
		],
	})
	const ticks = TICKS && perSecond(cannon)
	const result = await cannon
	return { n: result.requests.total, errors: rowOf(name, result).errors, ticks }
}

// The row first runs WARM_SECONDS unmeasured (its writer too): this server is new, and a
// new server's first seconds pay the JIT and each pooled connection's first parse and
// plan (universal reads took 3–7 s to reach their rate). A profile includes them.
if (WARM_SECONDS > 0) {
	const warming = row.writing ? writeEvery(call, auth, 10) : undefined
	await load(row, WARM_SECONDS, `${ROW} (warm-up)`)
	warming?.stop()
}
// As bench:writes' "100 posts/s" row: a post every 10 ms from this process while the row runs.
const writer = row.writing ? writeEvery(call, auth, 10) : undefined

if (STATEMENTS) {
	await sql`create extension if not exists pg_stat_statements`
	await sql`select pg_stat_statements_reset()`
}
if (REDIS_COMMANDS) await redis.call('config', 'resetstat')
const before = cpuNow()
const started = performance.now()
const waits = WAITS ? sampleWaits() : undefined
const loaded = await load(row, SECONDS)
const wrote = writer?.stop()
if (wrote?.firstError) console.log(`the writer's first failure: ${wrote.firstError}`)
if (loaded?.ticks) console.log(`requests per second: ${loaded.ticks.join(' ')}`)
const { n, errors } = loaded ?? { n: wrote?.written ?? 0, errors: wrote?.failed ?? 0 }
const waited = await waits?.stop()
const wall = (performance.now() - started) / 1000
const after = cpuNow()
const per = (s: number) => `${((s / n) * 1e6).toFixed(0)} µs`
console.log(`requests ${n} in ${wall.toFixed(1)} s (${Math.round(n / wall)}/s), errors ${errors}`)
const sides = Object.keys(before) as (keyof typeof before)[]
console.log(`CPU per request: ${sides.map((s) => `${s} ${per(after[s] - before[s])}`).join(', ')}`)
console.log(
	`CPU busy: ${sides.map((s) => `${s} ${((after[s] - before[s]) / wall).toFixed(2)}`).join(', ')} cores of 2`,
)
if (STATEMENTS) await printStatements()
if (waited) printWaits(waited)
if (REDIS_COMMANDS) await printRedisCommands(n)
server.child.kill('SIGTERM')
await server.child.exited
if (PROFILING) log(`profile written to ${PROFILE_DIR}`)
await sql.end()
redis.disconnect()

/** The row's costliest statements in this database: calls, execution and planning time, rows. */
async function printStatements() {
	const top = await sql<
		{ calls: number; exec: number; plan: number; rows: number; query: string }[]
	>`
		select calls::int, total_exec_time::float8 as exec, total_plan_time::float8 as plan, rows::int,
			left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 100) as query
		from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
		order by total_exec_time + total_plan_time desc limit 15`
	console.log('  calls   exec ms   plan ms     rows  statement')
	for (const t of top)
		console.log(
			`${String(t.calls).padStart(7)} ${t.exec.toFixed(1).padStart(9)} ${t.plan.toFixed(1).padStart(9)} ${String(t.rows).padStart(8)}  ${t.query}`,
		)
}

/** Each Redis command the row sent: calls per request and µs of Redis per call. */
async function printRedisCommands(requests: number) {
	const info = (await redis.info('commandstats')) as string
	const stats = [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)]
		.map(([, name, calls, usec]) => ({ name, calls: Number(calls), usec: Number(usec) }))
		.sort((a, b) => b.usec - a.usec)
	console.log('  per request  µs per call  command')
	for (const s of stats.slice(0, 15))
		console.log(
			`${(s.calls / requests).toFixed(2).padStart(13)} ${(s.usec / s.calls).toFixed(1).padStart(12)}  ${s.name}`,
		)
}

/**
 * Samples the states of the connections to this database every 10 ms until stopped;
 * resolves with each state's count summed over the samples. Idle connections (outside a
 * transaction: the pools' spare ones, this script's own) are left out.
 */
function sampleWaits() {
	const counts = new Map<string, number>()
	let samples = 0
	let running = true
	const done = (async () => {
		while (running) {
			const states = await sql<{ state: string }[]>`
				select coalesce(state, 'starting') || coalesce(' (' || wait_event_type || ': ' || wait_event || ')', '') as state
				from pg_stat_activity
				where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
					and state is distinct from 'idle'`
			samples++
			for (const { state } of states) counts.set(state, (counts.get(state) ?? 0) + 1)
			await Bun.sleep(10)
		}
	})()
	return {
		async stop() {
			running = false
			await done
			return { counts, samples }
		},
	}
}

function printWaits({ counts, samples }: { counts: Map<string, number>; samples: number }) {
	console.log(`  connections in each state but idle, on average over ${samples} samples:`)
	for (const [state, count] of [...counts].sort((a, b) => b[1] - a[1]))
		console.log(`${(count / samples).toFixed(2).padStart(7)}  ${state}`)
}
