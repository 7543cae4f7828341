// Like-toggle throughput: PUT /feed/post/:id/like through the whole app (auth, the
// transaction with the like row, the atomic counter, the post.liked event, cache
// invalidation) against a baseline of the bare SQL (like row + counter in one
// transaction), both at the same concurrency on one hot post.
// Run: npm run bench:likes  (own database plaza_bench_likes and Redis db 12, shared with
// bench:webhooks — both make their own community and neither flushes; never the
// developer's DATABASE_URL / REDIS_URL; BENCH_DATABASE_URL / BENCH_REDIS_URL override)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_likes'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.DATA_DIR ??= '.data/bench'
process.env.LOG_LEVEL ??= 'warn'

const { app } = await import('../../src/app')
const { config } = await import('../../src/config')
const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { createProject } = await import('../../src/modules/projects/service')
console.error(`[bench] database ${config.DATABASE_URL}, redis ${config.REDIS_URL}`)

const USERS = 400
const CONCURRENCY = 50

async function call(
	method: string,
	path: string,
	token: string | null,
	body?: unknown,
	apiKey?: string,
) {
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		'x-forwarded-for': '10.9.9.9',
	}
	if (token) headers.authorization = `Bearer ${token}`
	if (apiKey) headers['x-api-key'] = apiKey
	const response = await app.handle(
		new Request(`http://bench${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		}),
	)
	return { status: response.status, body: (await response.json()) as any }
}

async function run(label: string, jobs: (() => Promise<void>)[]) {
	const latencies: number[] = []
	let next = 0
	const started = performance.now()
	await Promise.all(
		Array.from({ length: CONCURRENCY }, async () => {
			while (next < jobs.length) {
				const job = jobs[next++] as () => Promise<void>
				const t0 = performance.now()
				await job()
				latencies.push(performance.now() - t0)
			}
		}),
	)
	const seconds = (performance.now() - started) / 1000
	latencies.sort((a, b) => a - b)
	const pct = (p: number) =>
		latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]?.toFixed(1)
	return {
		label,
		ops: jobs.length,
		perSecond: Math.round(jobs.length / seconds),
		p50: pct(0.5),
		p99: pct(0.99),
	}
}

await ensureDatabase(config.DATABASE_URL)
await migrate()
const project = await createProject({
	name: 'bench-likes',
	ownerCountryCode: '1',
	ownerMobile: `5${Date.now()}`.slice(0, 11),
})
const tokens: string[] = []
const ids: number[] = []
for (let i = 0; i < USERS; i++) {
	const reply = await call(
		'POST',
		'/sdk/initiate',
		null,
		{ user_unique_id: `bench-${Date.now()}-${i}`, user_name: `B${i}` },
		project.api_key,
	)
	tokens.push(reply.body.data.access_token)
	ids.push(reply.body.data.user.id)
}
const post = await call('POST', '/feed/post', tokens[0] as string, { text: 'hot post' })
const postId = post.body.data.post._id as string
const basePost = await call('POST', '/feed/post', tokens[0] as string, { text: 'baseline post' })
const baseId = basePost.body.data.post._id as string

// The baseline's statements name the community, as the app's do (DESIGN §21).
const c = project.community_id

// Each user toggles twice (like, then unlike): USERS * 2 operations on one hot row.
const apiJobs = [...tokens, ...tokens].map((token) => async () => {
	const reply = await call('PUT', `/feed/post/${postId}/like`, token)
	if (reply.status !== 200) throw new Error(JSON.stringify(reply.body))
})
const sqlJobs = [...ids, ...ids].map((userId, i) => async () => {
	await sql.begin(async (tx) => {
		if (i < ids.length) {
			await tx`insert into post_likes (community_id, post_id, user_id, created_at) values (${c}, ${baseId}, ${userId}, ${Date.now()}) on conflict do nothing`
			await tx`update posts set likes_count = likes_count + 1 where community_id = ${c} and id = ${baseId}`
		} else {
			await tx`delete from post_likes where community_id = ${c} and post_id = ${baseId} and user_id = ${userId}`
			await tx`update posts set likes_count = likes_count - 1 where community_id = ${c} and id = ${baseId}`
		}
	})
})

const baseline = await run('bare SQL (like row + counter)', sqlJobs)
const full = await run('PUT /feed/post/:id/like (app)', apiJobs)
const [row] = await sql`select likes_count from posts where community_id = ${c} and id = ${postId}`
console.table([baseline, full])
console.log(
	`app / baseline throughput: ${(full.perSecond / baseline.perSecond).toFixed(2)}; final likes_count ${row?.likes_count} (expected 0)`,
)
await sql.end()
process.exit(0)
