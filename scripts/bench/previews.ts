// Cached link previews: GET /helper/url through the whole app (auth, the Redis read of
// the cached og tags, the answer) for one page previewed once and then served from the
// cache, one request at a time and at CONCURRENCY; prints p50/p99 (issue 43's target: a
// cached preview in ≤ 5 ms p99).
// Run: bun run scripts/bench/previews.ts  (own database plaza_bench_previews, Redis db 12
// shared with the other benches — it makes its own community and never flushes;
// BENCH_DATABASE_URL / BENCH_REDIS_URL override; never the developer's DATABASE_URL)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_previews'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.DATA_DIR ??= '.data/bench'
process.env.LOG_LEVEL ??= 'warn'
// The page is served on loopback here, as in the tests.
process.env.WEBHOOK_ALLOWED_CIDRS ??= '127.0.0.0/8'
// One member asks thousands of times a minute: the per-user and per-IP limits would answer 429.
process.env.RATE_LIMIT_PER_MINUTE ??= '10000000'
process.env.RATE_LIMIT_IP_PER_MINUTE ??= '10000000'

const { app } = await import('../../src/app')
const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { createProject } = await import('../../src/modules/projects/service')

const REQUESTS = 5_000
const CONCURRENCY = 16

const page = Bun.serve({
	port: 0,
	hostname: '127.0.0.1',
	fetch: () =>
		new Response('<html><head><meta property="og:title" content="bench"></head></html>', {
			headers: { 'content-type': 'text/html' },
		}),
})

await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const project = await createProject({
	name: 'bench-previews',
	ownerCountryCode: '1',
	ownerMobile: `5${Date.now() % 1e9}`,
})
const initiated = await app.handle(
	new Request('http://bench/sdk/initiate', {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-api-key': project.api_key },
		body: JSON.stringify({ user_name: 'bench', user_unique_id: 'bench-previewer' }),
	}),
)
const token = ((await initiated.json()) as { data: { access_token: string } }).data.access_token
const url = `/helper/url?url=${encodeURIComponent(`http://127.0.0.1:${page.port}/article`)}`

async function preview(): Promise<number> {
	const t0 = performance.now()
	const response = await app.handle(
		new Request(`http://bench${url}`, {
			headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '10.9.9.8' },
		}),
	)
	const body = (await response.json()) as { data?: { og_tags: { title: string } } }
	if (response.status !== 200 || body.data?.og_tags.title !== 'bench')
		throw new Error(`preview failed: ${response.status} ${JSON.stringify(body)}`)
	return performance.now() - t0
}

const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

async function run(label: string, concurrency: number) {
	const latencies: number[] = []
	let left = REQUESTS
	const started = performance.now()
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (left-- > 0) latencies.push(await preview())
		}),
	)
	const seconds = (performance.now() - started) / 1000
	latencies.sort((a, b) => a - b)
	console.log(
		`${label.padEnd(28)} ${REQUESTS} requests  ${Math.round(REQUESTS / seconds)}/s  p50 ${percentile(latencies, 50).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms`,
	)
}

console.log(`first (uncached) preview: ${(await preview()).toFixed(1)} ms`)
for (let i = 0; i < 200; i++) await preview()
await run('cached, one at a time', 1)
await run(`cached, ${CONCURRENCY} at a time`, CONCURRENCY)
page.stop(true)
await sql.end()
process.exit(0)
