// Feed benchmark: seeds a realistic community into its own database (plaza_bench),
// rebuilds its Redis feeds, starts the server in a child process and measures with
// autocannon (64 connections) in this one:
//   (a) a bare Elysia route returning a constant — the ceiling of this machine,
//   (b) GET /feed/universal page 1 and 5, with and without topic_ids,
//   (c) the same pages from a plain Postgres join + order by + limit, same server.
// Run: npm run bench:feeds   (BENCH_SECONDS=10, BENCH_CONNECTIONS=64, BENCH_POSTS=50000)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench'
process.env.REDIS_URL =
	process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'

const {
	benchLog: log,
	measure: measureWith,
	printHeader,
	printRow,
	startBenchServer,
} = await import('./harness')
type Row = import('./harness').Row
const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { signAccessToken } = await import('../../src/lib/tokens')
const { rebuildCommunity } = await import('../../src/timelines/rebuild')
const { seed } = await import('./feeds-seed')

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
// The machine may be shared: each case runs this many times (interleaved) and keeps its best run.
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const size = {
	users: 5000,
	topics: 50,
	posts: Number(process.env.BENCH_POSTS ?? 50_000),
	likes: 200_000,
	comments: 100_000,
}

await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const bench = await seed(size, log)
const rebuildStarted = performance.now()
await rebuildCommunity(bench.communityId)
log(
	`rebuilt Redis for community ${bench.communityId} in ${Math.round(performance.now() - rebuildStarted)} ms`,
)
const token = await signAccessToken(
	{ sub: bench.viewerUuid, uid: bench.viewerId, cid: bench.communityId, role: 'member' },
	120,
)

const { child, port } = await startBenchServer('scripts/bench/feeds-server.ts')
log(`server on port ${port}, ${connections} connections, ${seconds} s per run`)
const load = { port, token, connections, seconds }
const measure = (name: string, path: string) => measureWith(load, name, path)

const topics = bench.topicIds.slice(0, 2).join(',')
const cases = [
	['page 1', 'page=1&page_size=20'],
	['page 5', 'page=5&page_size=20'],
	['page 1, 2 topics', `page=1&page_size=20&topic_ids=${topics}`],
	['page 5, 2 topics', `page=5&page_size=20&topic_ids=${topics}`],
] as const

const best = (a: Row | undefined, b: Row) => (a && a.rps >= b.rps ? a : b)

try {
	let bare: Row | undefined
	let authOnly: Row | undefined
	let staticPage: Row | undefined
	const rows: { redis?: Row; pg?: Row }[] = cases.map(() => ({}))
	for (let round = 0; round < rounds; round++) {
		bare = best(bare, await measure('(a) bare route', '/bench/bare'))
		authOnly = best(authOnly, await measure('    authenticated constant route', '/bench/auth-only'))
		staticPage = best(
			staticPage,
			await measure('    page 1 bytes as a constant', '/bench/static-page'),
		)
		for (const [i, [label, query]] of cases.entries()) {
			const row = rows[i] as { redis?: Row; pg?: Row }
			row.redis = best(
				row.redis,
				await measure(`(b) universal ${label}`, `/feed/universal?${query}`),
			)
			row.pg = best(row.pg, await measure(`(c) postgres ${label}`, `/bench/pg-universal?${query}`))
		}
	}
	if (!bare) throw new Error('no runs')
	console.log(
		`\nfeeds benchmark: ${bench.posts} posts, ${size.users} users, ${size.topics} topics, ${connections} connections, ${seconds} s/run, best of ${rounds}`,
	)
	printHeader()
	printRow(bare)
	for (const row of [authOnly, staticPage]) if (row) printRow(row, bare)
	for (const { redis: b, pg: c } of rows as { redis: Row; pg: Row }[]) {
		printRow(b, bare, c)
		printRow(c)
	}
	console.log('targets: (b)/(a) >= 30%, (b)/(c) >= 3x, p99 <= 20 ms')
} finally {
	child.kill()
	await sql.end()
	redis.disconnect()
}
