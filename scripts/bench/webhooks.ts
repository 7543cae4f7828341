// Webhook delivery benchmark, with the delivery engine running as its own process
// (ROLE=worker) and a local receiver in this process answering 200.
//  1. baseline: the same POSTs sent straight from here to the receiver (no queue, no
//     database) with the engine's per-endpoint concurrency — the ceiling of HTTP alone;
//  2. throughput: N events recorded with recordEvent in transactions (as the API does),
//     deliveries/s from the first event's creation to the last receipt, and latency;
//  3. retry lateness: M events (paced) whose first attempt is answered 503; how late
//     each retry arrives against its schedule (first attempt's answer + first retry delay).
// Run: bun run scripts/bench/webhooks.ts   (BENCH_EVENTS=10000 BENCH_RETRIES=2000 BENCH_RETRY_RATE=500 BENCH_WORKERS=1)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_c'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.LOG_LEVEL = 'warn'
process.env.DATA_DIR ??= '.data/bench'
process.env.WEBHOOK_ALLOWED_CIDRS = '127.0.0.0/8'
process.env.WEBHOOK_RETRY_SCHEDULE_MS = '1000,60000,3600000'

const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { keys } = await import('../../src/lib/keys')
const { redis } = await import('../../src/lib/redis')
const { recordEvent } = await import('../../src/webhooks/outbox')
const { createProject } = await import('../../src/modules/projects/service')
const { createWebhook } = await import('../../src/modules/webhooks/service')
const { defaultEngineOptions } = await import('../../src/webhooks/engine')
const { config } = await import('../../src/config')

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const RETRIES = Number(process.env.BENCH_RETRIES ?? 2_000)
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1)
const RETRY_RATE = Number(process.env.BENCH_RETRY_RATE ?? 500)

await ensureDatabase(config.DATABASE_URL)
await migrate()
await redis.del(keys.webhookDue(), keys.webhookInflight())

// ---- receiver -------------------------------------------------------------------
const arrivals = new Map<string, number[]>() // event id -> arrival time per attempt
const failedAt = new Map<string, number>() // event id -> when its first attempt was answered 503
const receiver = Bun.serve({
	port: 0,
	hostname: '127.0.0.1',
	async fetch(request) {
		const now = Date.now()
		const path = new URL(request.url).pathname
		const id = request.headers.get('webhook-id') ?? ''
		await request.arrayBuffer()
		if (path === '/baseline') return new Response('ok')
		const seen = arrivals.get(id) ?? []
		seen.push(now)
		arrivals.set(id, seen)
		if (path === '/retry' && seen.length === 1) {
			failedAt.set(id, Date.now())
			return new Response('not yet', { status: 503 })
		}
		return new Response('ok')
	},
})
const base = `http://127.0.0.1:${receiver.port}`

// ---- workers --------------------------------------------------------------------
const workers = Array.from({ length: WORKERS }, () =>
	Bun.spawn([process.execPath, 'src/index.ts'], {
		cwd: `${import.meta.dir}/../..`,
		env: { ...process.env, ROLE: 'worker', NODE_ENV: 'development' } as Record<string, string>,
		stdout: 'ignore',
		stderr: 'inherit',
	}),
)
process.on('exit', () => {
	for (const w of workers) w.kill('SIGKILL')
})
await Bun.sleep(1500)

// ---- helpers ----------------------------------------------------------------------
/** CPU seconds used so far by the worker processes (Linux /proc; user + system). */
async function workerCpuSeconds(): Promise<number> {
	let ticks = 0
	for (const w of workers) {
		const stat =
			(
				await Bun.file(`/proc/${w.pid}/stat`)
					.text()
					.catch(() => '')
			)
				.split(') ')[1]
				?.split(' ') ?? []
		ticks += Number(stat[11] ?? 0) + Number(stat[12] ?? 0)
	}
	return ticks / 100
}
const pct = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b)
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}
const fmt = (n: number) => n.toFixed(1)
const sample = {
	user: {
		id: 1,
		name: 'Bench User',
		uuid: crypto.randomUUID(),
		is_guest: false,
		image_url: '',
		is_deleted: false,
		custom_title: '',
		sdk_client_info: { uuid: 'bench', community: 1 },
	},
}

async function waitUntil(done: () => boolean, limitMs: number) {
	const until = Date.now() + limitMs
	while (!done() && Date.now() < until) await Bun.sleep(5)
	return done()
}

async function createEvents(communityId: number, count: number, event = 'profile.created') {
	const ids: string[] = []
	const perTx = 50
	const parallel = 4
	let next = 0
	await Promise.all(
		Array.from({ length: parallel }, async () => {
			while (next < count) {
				const n = Math.min(perTx, count - next)
				next += n
				await sql.begin(async (tx) => {
					for (let i = 0; i < n; i++)
						ids.push(await recordEvent(tx, { communityId, event, data: sample }))
				})
			}
		}),
	)
	return ids
}

async function setupCommunity(name: string, path: string) {
	const project = await createProject({
		name,
		ownerCountryCode: '1',
		ownerMobile: `5${Date.now()}`.slice(0, 11),
	})
	const session = {
		userId: 0,
		uuid: 'bench',
		communityId: project.community_id,
		role: 'owner' as const,
	}
	await createWebhook(session, {
		webhook_type: 'profile.created',
		url: `${base}${path}`,
		is_active: true,
	})
	return project.community_id
}

// ---- 1. baseline --------------------------------------------------------------------
{
	const body = JSON.stringify({
		id: 'x',
		created_at: Date.now(),
		event: 'profile.created',
		source: 'feed',
		data: sample,
	})
	const concurrency = defaultEngineOptions().perEndpoint
	let sent = 0
	const started = performance.now()
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (sent < EVENTS) {
				sent++
				const r = await fetch(`${base}/baseline`, {
					method: 'POST',
					body,
					headers: { 'content-type': 'application/json' },
				})
				await r.arrayBuffer()
			}
		}),
	)
	const seconds = (performance.now() - started) / 1000
	const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
	console.log(`machine: ${navigator.hardwareConcurrency} cores, load average ${load} at start`)
	console.log(
		`baseline: ${EVENTS} direct POSTs, concurrency ${concurrency}: ${fmt(EVENTS / seconds)} req/s`,
	)
}

// ---- 2. throughput ----------------------------------------------------------------------
{
	const communityId = await setupCommunity('bench-throughput', '/ok')
	const cpuBefore = await workerCpuSeconds()
	const started = Date.now()
	const ids = await createEvents(communityId, EVENTS)
	const created = Date.now()
	const complete = await waitUntil(() => ids.every((id) => arrivals.has(id)), 120_000)
	const last = Math.max(...ids.map((id) => arrivals.get(id)?.[0] ?? 0))
	const createdAt = new Map(
		(
			await sql`select id, created_at from events where community_id = ${communityId} and id in ${sql(ids)}`
		).map((r) => [r.id as string, Number(r.created_at)]),
	)
	const latencies = ids
		.filter((id) => arrivals.has(id))
		.map((id) => (arrivals.get(id)?.[0] ?? 0) - (createdAt.get(id) ?? 0))
	const dupes = ids.filter((id) => (arrivals.get(id)?.length ?? 0) > 1).length
	const cpu = (await workerCpuSeconds()) - cpuBefore
	console.log(
		`throughput: ${EVENTS} events (created at ${fmt(EVENTS / ((created - started) / 1000))}/s), ${complete ? 'all' : 'NOT all'} delivered: ` +
			`${fmt(EVENTS / ((last - started) / 1000))} deliveries/s end to end (${WORKERS} worker process); ` +
			`latency event->receipt p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms; duplicates ${dupes}; ` +
			`worker CPU ${fmt((cpu * 1e6) / EVENTS)} µs per delivery (= ${fmt(EVENTS / cpu)} deliveries per CPU-second)`,
	)
}

// ---- 3. retry lateness ---------------------------------------------------------------------
{
	// Paced below capacity (RETRY_RATE events/s), so lateness shows the scheduler's
	// precision rather than a backlog's queueing delay.
	const communityId = await setupCommunity('bench-retry', '/retry')
	const ids: string[] = []
	const tick = 50
	const perTick = Math.max(1, Math.round((RETRY_RATE * tick) / 1000))
	const pacedFrom = Date.now()
	for (let made = 0; made < RETRIES; made += perTick) {
		ids.push(...(await createEvents(communityId, Math.min(perTick, RETRIES - made))))
		const due = pacedFrom + ((made + perTick) / perTick) * tick
		if (due > Date.now()) await Bun.sleep(due - Date.now())
	}
	const complete = await waitUntil(
		() => ids.every((id) => (arrivals.get(id)?.length ?? 0) >= 2),
		120_000,
	)
	const delay = config.webhookRetryScheduleMs[0]
	const lateness = ids
		.filter((id) => (arrivals.get(id)?.length ?? 0) >= 2)
		.map((id) => (arrivals.get(id)?.[1] ?? 0) - ((failedAt.get(id) ?? 0) + delay))
	console.log(
		`retry lateness (${RETRIES} first retries, events at ${RETRY_RATE}/s, schedule ${delay} ms, ${complete ? 'all' : 'NOT all'} retried): ` +
			`p50 ${pct(lateness, 50)} ms, p99 ${pct(lateness, 99)} ms, max ${Math.max(...lateness)} ms, min ${Math.min(...lateness)} ms`,
	)
}

for (const w of workers) w.kill('SIGTERM')
await Promise.all(workers.map((w) => w.exited))
receiver.stop(true)
await sql.end()
redis.disconnect()
