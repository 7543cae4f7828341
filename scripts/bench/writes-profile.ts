// Where a write's time goes (issue 17): seeds like bench:writes, then runs ONE of its
// write rows against a server started under `bun --cpu-prof --cpu-prof-md` and prints
// the CPU seconds each side spent per request — the bench client (autocannon, this
// process), the server (app and worker), Postgres (every postgres process) and Redis —
// from /proc, beside the wall time. The server's profile (markdown and .cpuprofile) lands
// in BENCH_PROFILE_DIR (.data/profile). On 2 cores all four share the CPU, so CPU per
// request limits the rate, unless they sum to well under 2 (then it waits on something).
// Run: bun run scripts/bench/writes-profile.ts [spread|one|posts|read|read-writing]
// (BENCH_SECONDS=10; read-writing: universal page 1 while 100 posts a second are written)
import { readdirSync, readFileSync } from 'node:fs'
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

const ROW = process.argv[2] ?? 'spread'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ?? '.data/profile'
const CONNECTIONS = 16
const USERS = 64
const SEED_POSTS = 1000

const project = await freshProject()

// Seeding runs against a server without the profiler, so the profile holds the row only.
let server = await startBenchServer('scripts/bench/writes-server.ts')
let base = `http://127.0.0.1:${server.port}`
const call = apiCaller(() => base)
const writers = await signInWriters(call, project.api_key, USERS)
const auth = (i: number) => ({ authorization: `Bearer ${writers[i % USERS]?.token}` })
await createPosts(call, auth, SEED_POSTS)
const postIds = (await sql`select id from posts order by id`).map((r) => r.id as string)
server.child.kill()
await server.child.exited

process.env.BENCH_SERVER_FLAGS = `--cpu-prof --cpu-prof-md --cpu-prof-dir=${PROFILE_DIR}`
server = await startBenchServer('scripts/bench/writes-server.ts')
base = `http://127.0.0.1:${server.port}`
log(`seeded; profiling row "${ROW}" for ${SECONDS} s`)

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
const rows: Record<
	string,
	{ method: string; setup: (r: any) => any; body?: string; writing?: boolean }
> = {
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
	read: { method: 'GET', setup: universal },
	'read-writing': { method: 'GET', setup: universal, writing: true },
}
const row = rows[ROW]
if (!row) throw new Error(`unknown row ${ROW} (${Object.keys(rows).join(', ')})`)

// As bench:writes' "100 posts/s" row: a post every 10 ms from this process while the row runs.
let w = 0
const writer = row.writing
	? setInterval(() => {
			call('POST', '/feed/post', auth(w++), { text: `live ${w}` }).catch(() => {})
		}, 10)
	: undefined

const cpuNow = () => ({
	client: clientCpu(),
	server: cpuOf(server.child.pid),
	postgres: cpuOfAll('postgres'),
	redis: cpuOfAll('redis-server'),
})
const before = cpuNow()
const started = performance.now()
const result = await (autocannon as any)({
	url: base,
	connections: CONNECTIONS,
	duration: SECONDS,
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
clearInterval(writer)
const wall = (performance.now() - started) / 1000
const after = cpuNow()
const r = rowOf(ROW, result)
const n = result.requests.total as number
const per = (s: number) => `${((s / n) * 1e6).toFixed(0)} µs`
console.log(`requests ${n} in ${wall.toFixed(1)} s (${r.rps}/s), errors ${r.errors}`)
const sides = Object.keys(before) as (keyof typeof before)[]
console.log(`CPU per request: ${sides.map((s) => `${s} ${per(after[s] - before[s])}`).join(', ')}`)
console.log(
	`CPU busy: ${sides.map((s) => `${s} ${((after[s] - before[s]) / wall).toFixed(2)}`).join(', ')} cores of 2`,
)
server.child.kill('SIGTERM')
await server.child.exited
log(`profile written to ${PROFILE_DIR}`)
await sql.end()
redis.disconnect()
