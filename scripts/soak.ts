// Soak: plaza as an operator runs it (one ROLE=api and one ROLE=worker process,
// NODE_ENV=production) under mixed traffic for N minutes while things break: the worker
// is killed with SIGKILL and started again every minute, and Redis is killed and
// started again (empty) once, half-way. Everything is its own: a database dropped and
// made anew (SOAK_DATABASE_URL, default plaza_soak), a redis-server spawned here on a
// free port (so killing it harms nobody), and a webhook receiver in this process that
// verifies every signature. At the end it waits for the outbox to drain and prints
// requests by route class, 5xx, events committed against webhooks received (lost,
// duplicates) and the RSS of both processes sampled every 10 s.
// Exit 1 on any 5xx, lost event or bad signature.
//   npm run soak -- --minutes 10 [--clients 6] [--users 40] [--pause-ms 20]
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import { Webhook } from 'standardwebhooks'
import { type Plaza, runScript, spawnPlaza } from '../test/support/process'
import { startRedisServer } from '../test/support/redis-server'

const { values: args } = parseArgs({
	options: {
		minutes: { type: 'string', default: '10' },
		clients: { type: 'string', default: '6' },
		users: { type: 'string', default: '40' },
		'pause-ms': { type: 'string', default: '20' },
	},
})
const MINUTES = Number(args.minutes)
const CLIENTS = Number(args.clients)
const USERS = Number(args.users)
const PAUSE_MS = Number(args['pause-ms'])
const EVENT_TYPES = ['profile.created', 'post.created', 'post.liked', 'comment.added']
const DRAIN_TIMEOUT_MS = 5 * 60_000

const databaseUrl = process.env.SOAK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_soak'
const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s`
const say = (message: string) => console.log(`[${elapsed()}] ${message}`)

// ---- infrastructure: database, Redis, receiver ------------------------------------
async function recreateDatabase(url: string) {
	const name = new URL(url).pathname.slice(1)
	const adminUrl = new URL(url)
	adminUrl.pathname = '/postgres'
	const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} })
	await admin.unsafe(`drop database if exists "${name}" with (force)`)
	await admin.unsafe(`create database "${name}"`)
	await admin.end()
}

// Its own redis-server, so restarting it harms nobody.
const redisServer = await startRedisServer()
const redisPort = redisServer.port

const secrets = new Map<string, string>() // webhook type → secret
const receipts = new Map<string, number>() // event id → times received
let badSignatures = 0
const receiver = Bun.serve({
	port: 0,
	hostname: '127.0.0.1',
	async fetch(request) {
		const type = new URL(request.url).pathname.slice('/hook/'.length)
		const body = await request.text()
		try {
			new Webhook(secrets.get(type) as string).verify(body, Object.fromEntries(request.headers))
		} catch {
			badSignatures++
			return new Response('bad signature', { status: 400 })
		}
		const id = JSON.parse(body).id as string
		receipts.set(id, (receipts.get(id) ?? 0) + 1)
		return new Response('ok')
	},
})

// ---- plaza processes -----------------------------------------------------------------
const env: Record<string, string> = {
	NODE_ENV: 'production',
	HOST: '127.0.0.1',
	JWT_SECRET: crypto.randomUUID() + crypto.randomUUID(),
	SECRET_KEY: crypto.randomUUID() + crypto.randomUUID(),
	DATABASE_URL: databaseUrl,
	REDIS_URL: `redis://127.0.0.1:${redisPort}/0`,
	DATABASE_REPLICA_URL: '',
	REDIS_CLUSTER_NODES: '',
	WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
	// Retries within the run: a worker killed mid-send must not leave a retry an hour out.
	WEBHOOK_RETRY_SCHEDULE_MS: '1000,5000,30000',
	// The clients act as callers behind one load balancer (x-forwarded-for).
	TRUST_PROXY_HOPS: '1',
	DATA_DIR: '.data/soak',
}

await recreateDatabase(databaseUrl)
say(`database ${new URL(databaseUrl).pathname.slice(1)}, redis-server on ${redisPort}`)
const project = await runScript(
	[
		'scripts/project.ts',
		'create',
		'--name',
		'soak',
		'--owner-country-code',
		'1',
		'--owner-mobile',
		'5550100',
	],
	env,
)
if (project.code !== 0) throw new Error(`project create failed: ${project.stderr}`)
const apiKey = JSON.parse(project.stdout.trim().split('\n').pop() as string).api_key as string

const api = await spawnPlaza('api', env, { startTimeoutMs: 60_000 })
let worker: Plaza = await spawnPlaza('worker', env, { startTimeoutMs: 60_000 })
const base = `http://127.0.0.1:${api.port}`
say(`api pid ${api.proc.pid} on ${api.port}, worker pid ${worker.proc.pid}`)
const db = postgres(databaseUrl, { max: 2, onnotice: () => {} })

// ---- requests and their tally --------------------------------------------------------
interface Tally {
	count: number
	byStatus: Map<number, number>
	ms: number[]
}
const tallies = new Map<string, Tally>()
const serverErrors: string[] = []
let transportErrors = 0

async function call(
	kind: string,
	method: string,
	path: string,
	options: { token?: string; apiKey?: string; body?: unknown; ip?: string } = {},
): Promise<any> {
	const headers: Record<string, string> = { 'x-forwarded-for': options.ip ?? '10.1.0.1' }
	if (options.token) headers.authorization = `Bearer ${options.token}`
	if (options.apiKey) headers['x-api-key'] = options.apiKey
	if (options.body !== undefined) headers['content-type'] = 'application/json'
	const t0 = performance.now()
	let status = 0
	let text = ''
	try {
		const reply = await fetch(`${base}${path}`, {
			method,
			headers,
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
			signal: AbortSignal.timeout(30_000),
		})
		status = reply.status
		text = await reply.text()
	} catch (error) {
		transportErrors++
		if (transportErrors <= 5)
			say(`transport error on ${method} ${path}: ${(error as Error).message}`)
		return null
	}
	const tally: Tally = tallies.get(kind) ?? { count: 0, byStatus: new Map(), ms: [] }
	tally.count++
	tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1)
	tally.ms.push(performance.now() - t0)
	tallies.set(kind, tally)
	if (status >= 500) {
		serverErrors.push(`${elapsed()} ${method} ${path} ${status} ${text.slice(0, 200)}`)
		return null
	}
	if (status !== 200) return null
	return JSON.parse(text)
}

// ---- setup: webhooks, users, a first graph ---------------------------------------------
interface User {
	id: number
	uuid: string
	token: string
	ip: string
}
const initiate = async (uniqueId: string, ip: string): Promise<User> => {
	const body = await call('initiate', 'POST', '/sdk/initiate', {
		apiKey,
		ip,
		body: { user_unique_id: uniqueId, user_name: uniqueId },
	})
	if (!body) throw new Error(`initiate ${uniqueId} failed`)
	return { id: body.data.user.id, uuid: body.data.user.uuid, token: body.data.access_token, ip }
}
const cm = await initiate('soak-cm', '10.1.0.1')
await db`update users set role = 'cm' where id = ${cm.id}`
await call('settings', 'PUT', '/community/settings', {
	token: cm.token,
	body: { community_settings: [{ setting_type: 'user_connection', enabled: true }] },
})
for (const type of EVENT_TYPES) {
	const body = await call('webhook', 'POST', '/webhook', {
		token: cm.token,
		body: {
			webhook_type: type,
			url: `http://127.0.0.1:${receiver.port}/hook/${type}`,
			is_active: true,
		},
	})
	if (!body) throw new Error(`registering the ${type} webhook failed`)
	secrets.set(type, body.data.webhook.secret)
}
// Events from now on have a delivery each (the CM's own profile.created came before).
const registeredAt = Date.now()
const users: User[] = []
for (let i = 0; i < USERS; i++)
	users.push(await initiate(`soak-${i}`, `10.2.${i % 250}.${1 + (i % 200)}`))
const posts: string[] = []
say(`${USERS} users; traffic for ${MINUTES} min from ${CLIENTS} clients`)

// ---- traffic ------------------------------------------------------------------------------
const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T
const feeds = ['/feed/universal', '/feed/connection', '/feed/personalised']

async function act(user: User) {
	const roll = Math.random()
	const as = { token: user.token, ip: user.ip }
	if (roll < 0.45 || posts.length === 0) {
		if (posts.length === 0 && roll >= 0.45) {
			const body = await call('post', 'POST', '/feed/post', { ...as, body: { text: 'hello' } })
			if (body) posts.push(body.data.post._id)
			return
		}
		await call('feed read', 'GET', `${pick(feeds)}?page=1&page_size=20`, as)
	} else if (roll < 0.52) await call('post read', 'GET', `/feed/post/${pick(posts)}`, as)
	else if (roll < 0.7) await call('like', 'PUT', `/feed/post/${pick(posts)}/like`, as)
	else if (roll < 0.8) {
		const body = await call('post', 'POST', '/feed/post', {
			...as,
			body: { text: `soak ${Date.now()} ${Math.random().toString(36).slice(2)}` },
		})
		if (body) posts.push(body.data.post._id)
		if (posts.length > 500) posts.shift()
	} else if (roll < 0.9)
		await call('comment', 'POST', `/feed/post/${pick(posts)}/comment`, {
			...as,
			body: { text: `a comment ${Math.random().toString(36).slice(2)}` },
		})
	else {
		const other = pick(users)
		if (other === user) return
		await call('connection', 'POST', `/community/member/${other.uuid}/connection`, {
			...as,
			body: {
				connection_type: Math.random() < 0.5 ? 'two_way' : 'one_way',
				connection_request_auto_accepted: true,
			},
		})
	}
}

const deadline = Date.now() + MINUTES * 60_000
async function client() {
	while (Date.now() < deadline) {
		await act(pick(users))
		if (PAUSE_MS > 0) await Bun.sleep(PAUSE_MS * (0.5 + Math.random()))
	}
}

// ---- chaos and sampling -------------------------------------------------------------------
const rssMb = async (pid: number) => {
	const status = await Bun.file(`/proc/${pid}/status`)
		.text()
		.catch(() => '')
	const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
	return kb / 1024
}
const rss: { at: string; api: number; worker: number }[] = []
const sampler = setInterval(async () => {
	rss.push({ at: elapsed(), api: await rssMb(api.proc.pid), worker: await rssMb(worker.proc.pid) })
}, 10_000)

const retired: Plaza[] = [] // killed workers, whose logs still count
let workerKills = 0
let killing: Promise<void> = Promise.resolve()
async function killWorker() {
	await worker.stop('SIGKILL')
	retired.push(worker)
	workerKills++
	worker = await spawnPlaza('worker', env, { startTimeoutMs: 60_000 })
	say(`worker killed (SIGKILL) and started again: pid ${worker.proc.pid}`)
}
const killer = setInterval(() => {
	killing = killWorker()
}, 60_000)

let redisRestarted = false
const redisRestart = setTimeout(
	async () => {
		await redisServer.kill('SIGKILL')
		await Bun.sleep(1000)
		await redisServer.start()
		redisRestarted = true
		say('redis killed (SIGKILL) and started again, empty')
	},
	(MINUTES * 60_000) / 2,
)

await Promise.all(Array.from({ length: CLIENTS }, client))
clearInterval(killer)
clearTimeout(redisRestart)
await killing
say('traffic stopped; waiting for the outbox to drain')

// ---- drain and count ---------------------------------------------------------------------
const committed = async () =>
	(
		await db`select id from events where event in ${db(EVENT_TYPES)} and created_at >= ${registeredAt}`
	).map((r) => r.id as string)
const drainStart = Date.now()
for (;;) {
	const [pending] =
		await db`select count(*)::int as n from webhook_deliveries where status = 'pending'`
	const ids = await committed()
	if (pending?.n === 0 && ids.every((id) => receipts.has(id))) break
	if (Date.now() - drainStart > DRAIN_TIMEOUT_MS) {
		say(`drain timed out: ${pending?.n} deliveries pending`)
		break
	}
	await Bun.sleep(500)
}
say(`drained in ${((Date.now() - drainStart) / 1000).toFixed(1)} s`)
clearInterval(sampler)
rss.push({ at: elapsed(), api: await rssMb(api.proc.pid), worker: await rssMb(worker.proc.pid) })

const ids = await committed()
const lost = ids.filter((id) => !receipts.has(id))
const duplicates = [...receipts.values()].reduce((sum, n) => sum + n - 1, 0)
const statuses =
	await db`select status, count(*)::int as n from webhook_deliveries group by status order by status`
const [fanout] = await db`select count(*)::int as n from fanout_jobs where done_at is null`

// ---- report -----------------------------------------------------------------------------
const pct = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b)
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}
console.log('\n== soak report ==')
console.log(
	`${MINUTES} min, ${CLIENTS} clients, ${USERS} users; worker SIGKILLed ${workerKills}×; redis restarted: ${redisRestarted ? 'yes (empty)' : 'no'}`,
)
console.log('requests by route class:')
let total = 0
for (const [kind, tally] of [...tallies].sort()) {
	total += tally.count
	const codes = [...tally.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`)
	console.log(
		`  ${kind.padEnd(12)} ${String(tally.count).padStart(7)}  p50 ${pct(tally.ms, 50).toFixed(1)} ms  p99 ${pct(tally.ms, 99).toFixed(1)} ms  [${codes.join(' ')}]`,
	)
}
console.log(
	`  ${'total'.padEnd(12)} ${String(total).padStart(7)}  (${(total / (MINUTES * 60)).toFixed(0)}/s)`,
)
console.log(`5xx: ${serverErrors.length}; transport errors: ${transportErrors}`)
for (const line of serverErrors.slice(0, 10)) console.log(`  ${line}`)
console.log(
	`events committed: ${ids.length}; received: ${receipts.size} distinct; lost: ${lost.length}; duplicates: ${duplicates}; bad signatures: ${badSignatures}`,
)
for (const id of lost.slice(0, 10)) console.log(`  lost: ${id}`)
console.log(
	`deliveries by status: ${statuses.map((r) => `${r.status}:${r.n}`).join(' ')}; fan-out jobs left: ${fanout?.n}`,
)
// Error lines (pino level 50+) of every process, grouped by message.
const errorLines = new Map<string, number>()
for (const [name, p] of [
	['api', api],
	...[...retired, worker].map((w) => ['worker', w] as const),
] as const)
	for (const line of p.stdout.filter((l) => /"level":(50|60)/.test(l))) {
		const parsed = JSON.parse(line)
		const what = `${name}: ${parsed.msg} ${parsed.err?.message ?? ''}`.slice(0, 200)
		errorLines.set(what, (errorLines.get(what) ?? 0) + 1)
	}
console.log(`error log lines: ${[...errorLines.values()].reduce((a, b) => a + b, 0)}`)
for (const [what, n] of errorLines) console.log(`  ${n}× ${what}`)
// NaN: the worker was being replaced at that moment.
const mb = (value: number) => (Number.isNaN(value) ? '   -' : value.toFixed(0).padStart(4))
console.log('RSS (MB) every 10 s:')
for (const s of rss) console.log(`  ${s.at}  api ${mb(s.api)}  worker ${mb(s.worker)}`)

await api.stop()
await worker.stop()
await redisServer.kill('SIGTERM')
receiver.stop(true)
await db.end()
const failed = serverErrors.length > 0 || lost.length > 0 || badSignatures > 0
console.log(failed ? 'SOAK FAILED' : 'SOAK PASSED')
process.exit(failed ? 1 : 0)
