// Graph feeds benchmark: GET /feed/connection and GET /feed/personalised against
//   (a) a bare Elysia server in its own process (bare-server.ts, started by the
//       harness; the ceiling every ÷bare is over, sampled in every round) and
//   (c) the same page computed by a plain Postgres query on the app's server.
// Seeds a community (scripts/bench/feeds-seed.ts) into its own database
// (plaza_bench_d); the viewer follows 300 members. Server in a child process,
// autocannon (64 connections) in this one. GET /feed/universal page 1 is measured
// in the same run as a reference (the same render path). The rows run in
// BENCH_ROUNDS rounds, interleaved, and the table keeps each row's best round.
// Run: npm run bench:graph-feeds   (BENCH_SECONDS=10, BENCH_CONNECTIONS=64,
// BENCH_ROUNDS=2, BENCH_WARM_SECONDS=2, BENCH_POSTS=50000)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_d'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'

const {
	benchLog: log,
	measure: measureWith,
	printCeiling,
	printHeader,
	printRow,
	startBenchServer,
	startCeiling,
} = await import('./harness')
type Row = import('./harness').Row
const { sql } = await import('../../src/lib/db')
const { redis } = await import('../../src/lib/redis')
const { seedGraphBench, size } = await import('./graph-feeds-seed')

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const { bench, token } = await seedGraphBench(log)
const c = bench.communityId

const ceiling = await startCeiling()
const { child, port } = await startBenchServer('scripts/bench/graph-feeds-server.ts')
log(`community ${c}, server on port ${port}, ${connections} connections, ${seconds} s per run`)
const load = { port, token, connections, seconds }
const measure = (name: string, path: string) => measureWith(load, name, path)

/**
 * The plain-Postgres personalised page is slow enough that autocannon leaves queries
 * running when it stops; they would load the machine during the next row. Cancel what
 * is still running on the bench database and wait until it is idle.
 */
async function settle(): Promise<void> {
	for (let i = 0; i < 100; i++) {
		const [row] = await sql<{ active: number }[]>`
			select count(*)::int as active, count(pg_cancel_backend(pid)) from pg_stat_activity
			where datname = current_database() and pid <> pg_backend_pid() and state = 'active'`
		if (!row?.active) return
		await Bun.sleep(200)
	}
}

async function baseline(name: string, path: string) {
	const row = await measure(name, path)
	await settle()
	return row
}

const best = (a: Row | undefined, b: Row) => (a && a.rps >= b.rps ? a : b)
const pages = [
	['connection p1', '/feed/connection', '/bench/pg-connection', 1],
	['connection p5', '/feed/connection', '/bench/pg-connection', 5],
	['personalised p1', '/feed/personalised', '/bench/pg-personalised', 1],
	['personalised p5', '/feed/personalised', '/bench/pg-personalised', 5],
] as const

try {
	let bare: Row | undefined
	let universal: Row | undefined
	const pairs: { app?: Row; pg?: Row }[] = pages.map(() => ({}))
	for (let round = 0; round < rounds; round++) {
		bare = best(bare, await ceiling.measure(connections, seconds, '(a) bare server (own process)'))
		universal = best(
			universal,
			await measure('    /feed/universal p1 (reference)', '/feed/universal?page=1&page_size=20'),
		)
		for (const [i, [label, path, pgPath, page]] of pages.entries()) {
			const pair = pairs[i] as { app?: Row; pg?: Row }
			const query = `?page=${page}&page_size=20`
			pair.app = best(pair.app, await measure(`(b) ${path} p${page}`, path + query))
			pair.pg = best(pair.pg, await baseline(`(c) postgres ${label}`, pgPath + query))
		}
	}
	if (!bare || !universal) throw new Error('no runs')
	console.log(
		`\ngraph feeds benchmark: ${bench.posts} posts, ${size.users} users, viewer follows 300, ${connections} connections, ${seconds} s/run, best of ${rounds}`,
	)
	printHeader()
	printRow(bare)
	printRow(universal, bare)
	for (const { app, pg } of pairs as { app: Row; pg: Row }[]) {
		printRow(app, bare, pg)
		printRow(pg, bare)
	}
	printCeiling(ceiling)
	console.log('target: (b) ÷bare >= 0.25; ÷base is over the (c) row below')
} finally {
	ceiling.stop()
	child.kill()
	await sql.end()
	redis.disconnect()
}
