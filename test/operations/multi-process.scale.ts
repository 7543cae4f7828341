// The multi-process test (issue 18): plaza split as an operator runs it — two ROLE=api
// and two ROLE=worker processes, all started at the same moment on a database that
// does not exist yet — once on a 3-node Redis Cluster on loopback (started here from
// scripts/redis-cluster.ts) and once on a standalone Redis. A mixed workload goes
// round-robin through both api ports; meanwhile a worker is killed with SIGKILL and
// replaced, and an api is killed with SIGKILL and started again. Then nothing may be
// lost: every live post in the universal feed and in the connection feed (in Redis, not
// rebuilt) of each of its author's connections, blocked authors hidden, like counts
// exact, every event at the local receiver with a valid signature, both ports answering
// the same, no fan-out job left, no 5xx, no cross-slot error or error line in any log,
// and every process's metrics scrape showing the fan-out and webhook metrics.
//
// Not picked up by `bun test` (it takes a minute or two of processes): run by
// `npm run test:scale` and by `.ci/run`. Without redis-server it skips loudly, and
// fails when CI is set.
import { afterAll, describe, expect, test } from 'bun:test'
import Redis, { Cluster } from 'ioredis'
import postgres from 'postgres'
import { Webhook } from 'standardwebhooks'
import {
	type RedisClusterHandle,
	redisServerAvailable,
	startRedisCluster,
} from '../../scripts/redis-cluster'
import { config } from '../../src/config'
import { keys } from '../../src/lib/keys'
import { type PlazaProcess, startPlazaProcess, troubleIn } from '../support/fleet'
import { runScript } from '../support/process'

const USERS = 36
const POSTS_PER_PHASE = 110
const LIKES_PER_PHASE = 300
const COMMENTS = 80
const DELETES = 15
const BLOCKS = 3
const CONCURRENCY = 8
const EVENT_TYPES = ['profile.created', 'post.created', 'post.liked', 'comment.added'] as const

const available = redisServerAvailable()
if (!available) {
	const message =
		'multi-process test SKIPPED: redis-server/redis-cli not found; it needs them to start a Redis Cluster'
	console.warn(`\n${'!'.repeat(message.length)}\n${message}\n${'!'.repeat(message.length)}\n`)
	if (process.env.CI) throw new Error(message)
}

interface User {
	id: number
	uuid: string
	token: string
}

/** One run: its own database, Redis, receiver, processes and bookkeeping. */
class Run {
	processes: PlazaProcess[] = []
	apiPorts: number[] = []
	private turn = 0
	serverErrors: string[] = []
	received = new Map<string, { event: string; valid: boolean }>()
	receiver!: ReturnType<typeof Bun.serve>
	secrets = new Map<string, string>()
	db!: postgres.Sql
	redis!: Redis | Cluster
	users: User[] = []
	auditor!: User
	apiKey = ''
	follows = new Map<number, Set<number>>() // user id → the user ids whose posts they get
	posts = new Map<string, number>() // post id → author id (live posts)
	deleted = new Set<string>()
	likers = new Map<string, Set<number>>() // post id → users whose last toggle liked it
	blocked: [User, User][] = []
	expected = { 'profile.created': 0, 'post.created': 0, 'post.liked': 0, 'comment.added': 0 }

	constructor(
		readonly name: string,
		readonly env: Record<string, string>,
	) {}

	nextPort(): number {
		return this.apiPorts[this.turn++ % this.apiPorts.length] as number
	}

	async call(
		method: string,
		path: string,
		options: { token?: string; body?: unknown; apiKey?: string; port?: number } = {},
	) {
		const headers: Record<string, string> = { 'x-forwarded-for': `10.0.${this.turn % 250}.1` }
		if (options.token) headers.authorization = `Bearer ${options.token}`
		if (options.apiKey) headers['x-api-key'] = options.apiKey
		if (options.body !== undefined) headers['content-type'] = 'application/json'
		const port = options.port ?? this.nextPort()
		const response = await fetch(`http://127.0.0.1:${port}${path}`, {
			method,
			headers,
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
		})
		const body = (await response.json()) as any
		if (response.status >= 500) this.serverErrors.push(`${method} ${path} ${response.status}`)
		if (response.status !== 200)
			throw new Error(`${method} ${path} on ${port}: ${response.status} ${JSON.stringify(body)}`)
		return body
	}
}

/** Runs `tasks` with at most `n` at a time. */
async function inParallel(tasks: (() => Promise<void>)[], n = CONCURRENCY): Promise<void> {
	let next = 0
	await Promise.all(
		Array.from({ length: n }, async () => {
			while (next < tasks.length) await (tasks[next++] as () => Promise<void>)()
		}),
	)
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number) {
	const started = Date.now()
	while (!(await probe())) {
		if (Date.now() - started > timeoutMs)
			throw new Error(`timed out after ${timeoutMs} ms: ${what}`)
		await Bun.sleep(100)
	}
	return Date.now() - started
}

function startReceiver(run: Run) {
	run.receiver = Bun.serve({
		port: 0,
		hostname: '127.0.0.1',
		async fetch(request) {
			const type = new URL(request.url).pathname.slice('/hook/'.length)
			const body = await request.text()
			let valid = false
			try {
				new Webhook(run.secrets.get(type) as string).verify(
					body,
					Object.fromEntries(request.headers),
				)
				valid = true
			} catch {}
			const event = JSON.parse(body)
			run.received.set(event.id, { event: event.event, valid })
			return new Response('ok')
		},
	})
}

async function startFleet(run: Run, database: string) {
	const env = { ...run.env, DATABASE_URL: database }
	// Every process at the same moment, on a database none of them has seen yet.
	run.processes = await Promise.all([
		startPlazaProcess(`${run.name}-api-1`, 'api', env),
		startPlazaProcess(`${run.name}-api-2`, 'api', env),
		startPlazaProcess(`${run.name}-worker-1`, 'worker', env),
		startPlazaProcess(`${run.name}-worker-2`, 'worker', env),
	])
	run.apiPorts = run.processes.filter((p) => p.role === 'api').map((p) => p.port)
}

async function initiate(run: Run, uniqueId: string): Promise<User> {
	const body = await run.call('POST', '/sdk/initiate', {
		apiKey: run.apiKey,
		body: { user_unique_id: uniqueId, user_name: uniqueId },
	})
	return { id: body.data.user.id, uuid: body.data.user.uuid, token: body.data.access_token }
}

async function setUp(run: Run, database: string) {
	const project = await runScript(
		[
			'scripts/project.ts',
			'create',
			'--name',
			run.name,
			'--owner-country-code',
			'1',
			'--owner-mobile',
			`5550${process.pid}`,
		],
		{ DATABASE_URL: database, ...run.env },
	)
	expect(project.code).toBe(0)
	run.apiKey = JSON.parse(project.stdout.trim().split('\n').pop() as string).api_key
	const cm = await initiate(run, 'cm')
	await run.db`update users set role = 'cm' where id = ${cm.id}`
	await run.call('PUT', '/community/settings', {
		token: cm.token,
		body: { community_settings: [{ setting_type: 'user_connection', enabled: true }] },
	})
	for (const type of EVENT_TYPES) {
		const body = await run.call('POST', '/webhook', {
			token: cm.token,
			body: {
				webhook_type: type,
				url: `http://127.0.0.1:${run.receiver.port}/hook/${type}`,
				is_active: true,
			},
		})
		run.secrets.set(type, body.data.webhook.secret)
	}
	run.users = []
	await inParallel(
		Array.from({ length: USERS }, (_, i) => async () => {
			run.users[i] = await initiate(run, `member-${i}`)
		}),
	)
	run.auditor = await initiate(run, 'auditor')
	run.expected['profile.created'] = USERS + 1
	for (const u of run.users) run.follows.set(u.id, new Set())
	// Each member connects two-way with the next three (auto-accepted).
	await inParallel(
		run.users.flatMap((a, i) =>
			[1, 2, 3].map((step) => async () => {
				const b = run.users[(i + step) % USERS] as User
				await run.call('POST', `/community/member/${b.uuid}/connection`, {
					token: a.token,
					body: { connection_type: 'two_way', connection_request_auto_accepted: true },
				})
				run.follows.get(a.id)?.add(b.id)
				run.follows.get(b.id)?.add(a.id)
			}),
		),
	)
	// Every member reads its connection feed once: from now on fan-out keeps it.
	await inParallel(
		run.users.map(
			(u) => () => run.call('GET', '/feed/connection', { token: u.token }).then(() => {}),
		),
	)
}

const pick = <T>(list: T[], i: number) => list[i % list.length] as T

async function writePosts(run: Run, count: number, seed: number) {
	await inParallel(
		Array.from({ length: count }, (_, i) => async () => {
			const author = pick(run.users, seed + i * 7)
			const body = await run.call('POST', '/feed/post', {
				token: author.token,
				body: { text: `post ${seed}-${i}` },
			})
			run.posts.set(body.data.post._id, author.id)
			run.expected['post.created']++
		}),
	)
}

/** Like toggles, each user's in sequence (a user's toggles of one post never overlap). */
async function toggleLikes(run: Run, count: number, seed: number) {
	const postIds = [...run.posts.keys()]
	const perUser = new Map<User, string[]>()
	for (let i = 0; i < count; i++) {
		const user = pick(run.users, seed + i)
		perUser.set(user, [...(perUser.get(user) ?? []), pick(postIds, seed * 3 + i * 13)])
	}
	await inParallel(
		[...perUser].map(([user, ids]) => async () => {
			for (const postId of ids) {
				const body = await run.call('PUT', `/feed/post/${postId}/like`, { token: user.token })
				const likers = run.likers.get(postId) ?? new Set()
				if (body.data.is_liked) {
					likers.add(user.id)
					run.expected['post.liked']++
				} else likers.delete(user.id)
				run.likers.set(postId, likers)
			}
		}),
	)
}

async function comment(run: Run, count: number) {
	const postIds = [...run.posts.keys()]
	await inParallel(
		Array.from({ length: count }, (_, i) => async () => {
			await run.call('POST', `/feed/post/${pick(postIds, i * 5)}/comment`, {
				token: pick(run.users, i * 11).token,
				body: { text: `comment ${i}` },
			})
			run.expected['comment.added']++
		}),
	)
}

async function deletePosts(run: Run, count: number) {
	const victims = [...run.posts].filter((_, i) => i % 9 === 4).slice(0, count)
	const byId = new Map(run.users.map((u) => [u.id, u]))
	await inParallel(
		victims.map(([postId, authorId]) => async () => {
			await run.call('DELETE', `/feed/post/${postId}`, { token: byId.get(authorId)?.token })
			run.posts.delete(postId)
			run.deleted.add(postId)
		}),
	)
}

async function block(run: Run, count: number) {
	for (let i = 0; i < count; i++) {
		const a = run.users[i * 5] as User
		const b = run.users[i * 5 + 1] as User
		await run.call('PUT', `/user/${a.uuid}/block`, {
			token: a.token,
			body: { uuid: b.uuid, shouldBlock: true },
		})
		run.follows.get(a.id)?.delete(b.id)
		run.follows.get(b.id)?.delete(a.id)
		run.blocked.push([a, b])
	}
}

/** Replaces a process: SIGKILL, then a new one of the same role with the same settings. */
async function killAndReplace(run: Run, victim: PlazaProcess, database: string) {
	expect(await victim.stop('SIGKILL')).not.toBe(0)
	const replacement = await startPlazaProcess(`${victim.name}-again`, victim.role, {
		...run.env,
		DATABASE_URL: database,
	})
	run.processes.push(replacement)
	if (victim.role === 'api')
		run.apiPorts = [...run.apiPorts.filter((p) => p !== victim.port), replacement.port]
	return replacement
}

async function universalIds(run: Run, viewer: User, port: number) {
	const posts: { _id: string; likes_count: number }[] = []
	for (let page = 1; ; page++) {
		const body = await run.call('GET', `/feed/universal?page=${page}&page_size=100`, {
			token: viewer.token,
			port,
		})
		posts.push(...body.data.posts)
		if (body.data.posts.length < 100) return posts
	}
}

async function connectionFeedInRedis(run: Run, user: User): Promise<string[]> {
	return run.redis.zrange(keys.connFeed(user.id), 0, -1)
}

async function settled(run: Run): Promise<boolean> {
	const [fanout] = await run.db`select count(*)::int as n from fanout_jobs where done_at is null`
	const [pending] =
		await run.db`select count(*)::int as n from webhook_deliveries where status = 'pending'`
	const total = Object.values(run.expected).reduce((a, b) => a + b, 0)
	return fanout?.n === 0 && pending?.n === 0 && run.received.size >= total
}

async function check(run: Run) {
	const live = new Set(run.posts.keys())
	// Universal feed on every api port: every live post, none deleted, exact like counts.
	const pages = await Promise.all(run.apiPorts.map((port) => universalIds(run, run.auditor, port)))
	for (const posts of pages) {
		expect(new Set(posts.map((p) => p._id))).toEqual(live)
		for (const post of posts) expect(post.likes_count).toBe(run.likers.get(post._id)?.size ?? 0)
	}
	expect(pages[1]).toEqual(pages[0] as never)

	// Connection feeds as fan-out left them in Redis (no rebuild on read can hide a gap).
	let entries = 0
	for (const user of run.users) {
		const expected = [...live].filter((id) =>
			run.follows.get(user.id)?.has(run.posts.get(id) as number),
		)
		const stored = await connectionFeedInRedis(run, user)
		expect(new Set(stored)).toEqual(new Set(expected))
		entries += expected.length
	}
	expect(entries).toBeGreaterThan(run.users.length)

	// And through both ports: the same page, blocked authors hidden both ways.
	for (const user of run.users.slice(0, 6)) {
		const [a, b] = await Promise.all(
			run.apiPorts
				.slice(0, 2)
				.map((port) =>
					run.call('GET', '/feed/connection?page_size=100', { token: user.token, port }),
				),
		)
		expect(a.data.feed.map((p: any) => p._id)).toEqual(b.data.feed.map((p: any) => p._id))
	}
	for (const [a, b] of run.blocked) {
		for (const [viewer, author] of [
			[a, b],
			[b, a],
		] as const) {
			const universal = await universalIds(run, viewer, run.nextPort())
			const authored = [...live].filter((id) => run.posts.get(id) === author.id)
			expect(authored.length).toBeGreaterThan(0)
			expect(universal.some((p) => authored.includes(p._id))).toBe(false)
			const conn = await run.call('GET', '/feed/connection?page_size=100', { token: viewer.token })
			expect(conn.data.feed.some((p: any) => authored.includes(p._id))).toBe(false)
		}
	}

	// Every event at the receiver, signed with its webhook's secret; every delivery done.
	const byType: Record<string, number> = {}
	for (const { event, valid } of run.received.values()) {
		expect(valid).toBe(true)
		byType[event] = (byType[event] ?? 0) + 1
	}
	expect(byType).toEqual(run.expected)
	const [undelivered] =
		await run.db`select count(*)::int as n from webhook_deliveries where status <> 'delivered'`
	expect(undelivered?.n).toBe(0)

	expect(run.serverErrors).toEqual([])
	const alive = run.processes.filter((p) => p.alive())
	for (const p of alive) {
		const ready = (await (await fetch(`http://127.0.0.1:${p.port}/ready`)).json()) as any
		expect(ready.jobs_failing.fanout).toBe(0)
		const metrics = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text()
		expect(metrics).toContain('webhook_attempts_total')
		expect(metrics).toContain('feed_fanout_lag_seconds')
	}
	// The workers that did the work count it, and each one's METRICS_PORT shows it.
	const workerMetrics = await Promise.all(
		alive
			.filter((p) => p.role === 'worker')
			.map(async (p) => (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text()),
	)
	expect(
		workerMetrics.some((m) => /webhook_attempts_total\{outcome="delivered"\} [1-9]/.test(m)),
	).toBe(true)
	expect(workerMetrics.some((m) => /feed_fanout_lag_seconds_count [1-9]/.test(m))).toBe(true)
	const trouble = troubleIn(run.processes)
	expect(trouble.crossSlot).toEqual([])
	expect(trouble.errors).toEqual([])
}

async function scenario(run: Run) {
	const database = `${new URL(config.DATABASE_URL).pathname.slice(1)}_fleet_${run.name}_${process.pid}`
	const url = new URL(config.DATABASE_URL)
	const admin = postgres({ ...adminUrl(url), max: 1, onnotice: () => {} })
	await admin.unsafe(`drop database if exists "${database}" with (force)`)
	url.pathname = `/${database}`
	startReceiver(run)
	try {
		await startFleet(run, url.toString())
		run.db = postgres(url.toString(), { max: 4, onnotice: () => {} })
		await setUp(run, url.toString())

		await writePosts(run, POSTS_PER_PHASE, 1)
		// A worker dies mid-work (SIGKILL) while posts and likes keep coming; a new one starts.
		const worker = run.processes.find((p) => p.role === 'worker') as PlazaProcess
		await Promise.all([
			writePosts(run, POSTS_PER_PHASE, 2),
			toggleLikes(run, LIKES_PER_PHASE, 2),
			Bun.sleep(300).then(() => killAndReplace(run, worker, url.toString())),
		])
		await comment(run, COMMENTS)
		// An api leaves the balancer, is killed with SIGKILL and started again (new port).
		const api = run.processes.find((p) => p.role === 'api') as PlazaProcess
		run.apiPorts = run.apiPorts.filter((p) => p !== api.port)
		await killAndReplace(run, api, url.toString())
		await Promise.all([writePosts(run, POSTS_PER_PHASE, 3), toggleLikes(run, LIKES_PER_PHASE, 3)])
		await deletePosts(run, DELETES)
		await block(run, BLOCKS)

		const ms = await waitFor('fan-out and webhooks settle', () => settled(run), 60_000)
		console.log(
			`[${run.name}] settled ${ms} ms after the last write: ${run.posts.size} live posts, ${run.received.size} events`,
		)
		await check(run)
	} catch (error) {
		// The processes' own error lines say why (they are gone after this test).
		console.error(troubleIn(run.processes).errors.slice(0, 10).join('\n'))
		throw error
	} finally {
		await Promise.all(run.processes.map((p) => (p.alive() ? p.stop('SIGTERM') : 0)))
		run.receiver.stop(true)
		await run.db?.end()
		await admin.unsafe(`drop database if exists "${database}" with (force)`)
		await admin.end()
	}
}

function adminUrl(url: URL) {
	const admin = new URL(url)
	admin.pathname = '/postgres'
	return {
		host: admin.hostname,
		port: Number(admin.port || 5432),
		user: decodeURIComponent(admin.username || 'postgres'),
		password: admin.password || undefined,
		database: 'postgres',
	}
}

const common = {
	NODE_ENV: 'production',
	JWT_SECRET: 'multi-process-test-jwt-secret-0123456789',
	SECRET_KEY: 'multi-process-test-secret-key-0123456789',
	WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
	WEBHOOK_TIMEOUT_MS: '2000',
	WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
	RATE_LIMIT_PER_MINUTE: '1000000',
	RATE_LIMIT_IP_PER_MINUTE: '1000000',
	TRUST_PROXY_HOPS: '1',
	// Five processes share the machine's Postgres with other suites (max_connections).
	DATABASE_POOL_MAX: '6',
}

let cluster: RedisClusterHandle | null = null
afterAll(async () => {
	await cluster?.stop()
})

describe.skipIf(!available)('two api and two worker processes, with kills', () => {
	test('on a 3-node Redis Cluster nothing is lost', async () => {
		cluster = await startRedisCluster()
		const run = new Run('cluster', { ...common, REDIS_CLUSTER_NODES: cluster.nodes })
		run.redis = new Cluster(
			cluster.nodes.split(',').map((n) => ({ host: '127.0.0.1', port: Number(n.split(':')[1]) })),
		)
		try {
			await scenario(run)
		} finally {
			run.redis.disconnect()
		}
	}, 170_000)

	test('on a standalone Redis nothing is lost', async () => {
		// The suite's own Redis db (flushed by the preload), never a developer's.
		const redisUrl = process.env.REDIS_URL as string
		const run = new Run('standalone', { ...common, REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: '' })
		run.redis = new Redis(redisUrl)
		try {
			await scenario(run)
		} finally {
			run.redis.disconnect()
		}
	}, 170_000)
})
