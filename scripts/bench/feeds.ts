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

const { default: autocannon } = await import('autocannon')
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
const log = (msg: string) => console.error(`[bench] ${msg}`)

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

const child = Bun.spawn([process.execPath, 'run', 'scripts/bench/feeds-server.ts'], {
	env: { ...process.env },
	stdout: 'pipe',
	stderr: 'inherit',
})
const port = await (async () => {
	const reader = child.stdout.getReader()
	let text = ''
	while (!/listening (\d+)/.test(text)) {
		const { value, done } = await reader.read()
		if (done) throw new Error('bench server exited')
		text += new TextDecoder().decode(value)
	}
	return Number(/listening (\d+)/.exec(text)?.[1])
})()
log(`server on port ${port}, ${connections} connections, ${seconds} s per run`)

interface Row {
	name: string
	rps: number
	p50: number
	p99: number
	errors: number
}

async function measure(name: string, path: string): Promise<Row> {
	const url = `http://127.0.0.1:${port}${path}`
	const check = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
	if (check.status !== 200)
		throw new Error(`${path} answered ${check.status}: ${await check.text()}`)
	await autocannon({ url, connections, duration: 2, headers: { authorization: `Bearer ${token}` } })
	const result = await autocannon({
		url,
		connections,
		duration: seconds,
		headers: { authorization: `Bearer ${token}` },
	})
	const row = {
		name,
		rps: Math.round(result.requests.average),
		p50: result.latency.p50,
		p99: result.latency.p99,
		errors: result.errors + result.timeouts + result.non2xx,
	}
	log(`${name}: ${row.rps} req/s p50 ${row.p50} ms p99 ${row.p99} ms errors ${row.errors}`)
	return row
}

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
	const pad = (value: string | number, width: number) => String(value).padStart(width)
	console.log(
		`\nfeeds benchmark: ${bench.posts} posts, ${size.users} users, ${size.topics} topics, ${connections} connections, ${seconds} s/run, best of ${rounds}`,
	)
	console.log(
		`${'case'.padEnd(34)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('b/a', 7)}${pad('b/c', 7)}`,
	)
	const line = (row: Row, ratios = ['', '']) =>
		console.log(
			`${row.name.padEnd(34)}${pad(row.rps, 9)}${pad(row.p50, 8)}${pad(row.p99, 8)}${pad(row.errors, 8)}${pad(ratios[0] ?? '', 7)}${pad(ratios[1] ?? '', 7)}`,
		)
	line(bare)
	for (const row of [authOnly, staticPage])
		if (row) line(row, [`${Math.round((100 * row.rps) / bare.rps)}%`, ''])
	for (const { redis: b, pg: c } of rows as { redis: Row; pg: Row }[]) {
		line(b, [`${Math.round((100 * b.rps) / (bare as Row).rps)}%`, `${(b.rps / c.rps).toFixed(1)}x`])
		line(c)
	}
	console.log('targets: (b)/(a) >= 30%, (b)/(c) >= 3x, p99 <= 20 ms')
} finally {
	child.kill()
	await sql.end()
	redis.disconnect()
}
