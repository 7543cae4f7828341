// The review queue's first page with 100,000 open reports: GET /community/report through
// the whole app (auth, the queue's index walk, the reports of the page's entities, their
// posts and users), one request at a time; prints p50/p99 (issue 38's target: p99 ≤ 25 ms)
// and the plan of the queue's statement.
// Run: bun run scripts/bench/reports.ts  (own database plaza_bench_reports, Redis db 12
// shared with the other benches — it makes its own community and never flushes;
// BENCH_DATABASE_URL / BENCH_REDIS_URL override; never the developer's DATABASE_URL)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_reports'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.DATA_DIR ??= '.data/bench'
process.env.LOG_LEVEL ??= 'warn'
process.env.RATE_LIMIT_PER_MINUTE ??= '10000000'
process.env.RATE_LIMIT_IP_PER_MINUTE ??= '10000000'

const { app } = await import('../../src/app')
const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { createProject } = await import('../../src/modules/projects/service')
const { newId } = await import('../../src/lib/ids')

const REPORTS = 100_000
const POSTS = 20_000
const REQUESTS = 1_000

await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const project = await createProject({
	name: 'bench-reports',
	ownerCountryCode: '1',
	ownerMobile: `5${Date.now() % 1e9}`,
})
const c = project.community_id

async function initiate(uniqueId: string): Promise<{ token: string; id: number }> {
	const response = await app.handle(
		new Request('http://bench/sdk/initiate', {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-api-key': project.api_key },
			body: JSON.stringify({ user_name: uniqueId, user_unique_id: uniqueId }),
		}),
	)
	const body = (await response.json()) as { data: { access_token: string; user: { id: number } } }
	return { token: body.data.access_token, id: body.data.user.id }
}

const cm = await initiate('bench-cm')
await sql`update users set role = 'cm' where id = ${cm.id}`
const author = await initiate('bench-author')
// Reporters: 1,000 members, each reporting up to 100 posts (one open report per pair).
const reporters: number[] = []
for (let i = 0; i < 1_000; i++) reporters.push((await initiate(`bench-reporter-${i}`)).id)

// Tags are seeded on the first read.
await app.handle(
	new Request('http://bench/community/report/tag', {
		headers: { authorization: `Bearer ${cm.token}` },
	}),
)
const [tag] =
	await sql`select id from report_tags where community_id = ${c} and entity_type = 'post' limit 1`
const now = Date.now()
const postIds = Array.from({ length: POSTS }, () => newId())
await sql`
	insert into posts (id, community_id, user_id, text, created_at, updated_at)
	select id, ${c}, ${author.id}, 'reported post', ${now}, ${now} from unnest(${postIds}::text[]) as id`
await sql`
	insert into reports (community_id, entity_type, entity_id, accused_user_id, reporter_user_id, tag_id, created_at)
	select ${c}, 'post', (${postIds}::text[])[1 + (n % ${POSTS})], ${author.id},
		(${reporters}::int8[])[1 + (n / ${POSTS})::int % ${reporters.length}], ${tag.id}, ${now}::bigint + n
	from generate_series(0, ${REPORTS - 1}) as n
	on conflict do nothing`
await sql`analyze reports`
const [{ open }] =
	await sql`select count(*)::int as open from reports where community_id = ${c} and not is_closed`
console.log(`open reports: ${open} over ${POSTS} posts`)

async function firstPage(): Promise<number> {
	const t0 = performance.now()
	const response = await app.handle(
		new Request(
			'http://bench/community/report?page=1&page_size=10&filter_type=["post"]&is_closed=false',
			{
				headers: { authorization: `Bearer ${cm.token}` },
			},
		),
	)
	const body = (await response.json()) as { data?: { reports_data: unknown[] } }
	if (response.status !== 200 || body.data?.reports_data.length !== 10)
		throw new Error(`queue failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`)
	return performance.now() - t0
}

const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

for (let i = 0; i < 50; i++) await firstPage()
const latencies: number[] = []
for (let i = 0; i < REQUESTS; i++) latencies.push(await firstPage())
latencies.sort((a, b) => a - b)
console.log(
	`queue first page, one at a time: ${REQUESTS} requests  p50 ${percentile(latencies, 50).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms`,
)
const plan = await sql.unsafe(
	`explain analyze select r.entity_type, r.entity_id from reports r
	where r.community_id = $1 and r.is_closed = false and r.entity_type = any('{post}'::text[])
		and not exists (select 1 from reports e where e.community_id = r.community_id
			and e.entity_type = r.entity_type and e.entity_id = r.entity_id and e.is_closed = r.is_closed and e.id > r.id)
	order by r.id desc limit 11 offset 0`,
	[c],
)
for (const row of plan) console.log(row['QUERY PLAN'])
await sql.end()
process.exit(0)
