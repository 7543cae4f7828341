// Graph feeds benchmark: GET /feed/connection and GET /feed/personalised against
//   (a) a bare Elysia route returning a constant (the machine's ceiling) and
//   (c) the same page computed by a plain Postgres query on the same server.
// Seeds a community (scripts/bench/feeds-seed.ts) into its own database
// (plaza_bench_d); the viewer follows 300 members. Server in a child process,
// autocannon (64 connections) in this one. GET /feed/universal page 1 is measured
// in the same run as a reference (the same render path).
// Run: bun run scripts/bench/graph-feeds.ts   (BENCH_SECONDS=10, BENCH_CONNECTIONS=64)
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
	printHeader,
	printRow,
	startBenchServer,
} = await import('./harness')
const { sql } = await import('../../src/lib/db')
const { redis } = await import('../../src/lib/redis')
const { seedGraphBench, size } = await import('./graph-feeds-seed')

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
const { bench, token } = await seedGraphBench(log)
const c = bench.communityId

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

try {
	const bare = await measure('(a) bare route', '/bench/bare')
	const universal = await measure(
		'    /feed/universal p1 (reference)',
		'/feed/universal?page=1&page_size=20',
	)
	const pairs = [
		[
			await measure('(b) /feed/connection p1', '/feed/connection?page=1&page_size=20'),
			await baseline('(c) postgres connection p1', '/bench/pg-connection?page=1&page_size=20'),
		],
		[
			await measure('(b) /feed/connection p5', '/feed/connection?page=5&page_size=20'),
			await baseline('(c) postgres connection p5', '/bench/pg-connection?page=5&page_size=20'),
		],
		[
			await measure('(b) /feed/personalised p1', '/feed/personalised?page=1&page_size=20'),
			await baseline('(c) postgres personalised p1', '/bench/pg-personalised?page=1&page_size=20'),
		],
		[
			await measure('(b) /feed/personalised p5', '/feed/personalised?page=5&page_size=20'),
			await baseline('(c) postgres personalised p5', '/bench/pg-personalised?page=5&page_size=20'),
		],
	] as const
	console.log(
		`\ngraph feeds benchmark: ${bench.posts} posts, ${size.users} users, viewer follows 300, ${connections} connections, ${seconds} s/run`,
	)
	printHeader()
	printRow(bare)
	printRow(universal, bare)
	for (const [b, pgRow] of pairs) {
		printRow(b, bare, pgRow)
		printRow(pgRow)
	}
	console.log('target: (b)/(a) >= 25%')
} finally {
	child.kill()
	await sql.end()
	redis.disconnect()
}
