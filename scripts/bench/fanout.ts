// Fan-out benchmark: one author with 10,000 and one with 100,000 followers posts;
// measures the time from POST /feed/post until the post is in every follower's
// connection feed, with the fan-out worker running as its own process (ROLE=worker).
// Baseline in the same run: the same number of ZADDs pipelined straight into Redis
// (no Postgres, no job, no Lua) — the floor of what the write itself costs.
// Also: Redis memory per feed entry (MEMORY USAGE) for full 1,000-entry feeds.
// Run: bun run scripts/bench/fanout.ts   (BENCH_RUNS=3; own database plaza_bench_d)
// BENCH_REDIS_CLUSTER=1: on a 3-node Redis Cluster on loopback started for the run
// (scripts/redis-cluster.ts) instead of Redis db 13; the memory figures are then skipped
// (CONFIG SET would reach one node only).
import { startRedisCluster } from '../redis-cluster'

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_d'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'
const cluster = process.env.BENCH_REDIS_CLUSTER === '1' ? await startRedisCluster() : null
if (cluster) process.env.REDIS_CLUSTER_NODES = cluster.nodes
else delete process.env.REDIS_CLUSTER_NODES

const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { keys } = await import('../../src/lib/keys')
const { redis } = await import('../../src/lib/redis')
const { pipelineBySlot } = await import('../../src/lib/redis-slots')
const { newId } = await import('../../src/lib/ids')
const { createProject } = await import('../../src/modules/projects/service')
const { queueAdd, CONN_FEED_MAX } = await import('../../src/timelines/connection-feed')
const { app } = await import('../../src/app')
const { signAccessToken } = await import('../../src/lib/tokens')
const { insertConnections } = await import('../../src/modules/connections/repo')

const runs = Number(process.env.BENCH_RUNS ?? 3)
const sizes = [10_000, 100_000]
const log = (msg: string) => console.error(`[bench] ${msg}`)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

await ensureDatabase(process.env.DATABASE_URL)
await migrate()

const project = await createProject({
	name: 'fanout-bench',
	ownerCountryCode: '1',
	ownerMobile: `66${Date.now() % 1e8}`,
})
const c = project.community_id
const [followersMade] = [
	await sql`
	insert into users (uuid, community_id, user_unique_id, name)
	select gen_random_uuid(), ${c}, 'f-' || g, 'Follower ' || g from generate_series(1, ${Math.max(...sizes)}) g
	returning id::float8 as id`,
]
const followers = followersMade.map((r) => r.id as number)
log(`community ${c}: ${followers.length} users`)

async function makeAuthor(n: number) {
	const [author] = await sql`
		insert into users (uuid, community_id, user_unique_id, name) values (gen_random_uuid(), ${c}, ${`author-${n}`}, ${`Author ${n}`})
		returning id::float8 as id, uuid::text`
	await insertConnections(
		sql,
		c,
		followers.slice(0, n).map((id): [number, number] => [id, author!.id]),
		'one_way',
		0,
	)
	const token = await signAccessToken(
		{ sub: author!.uuid, uid: author!.id, cid: c, role: 'member' },
		60,
	)
	return { id: author!.id as number, token }
}

// Followers' keys differ in hash tag: on a cluster one pipeline per slot owner.
async function forEachBatch(
	ids: number[],
	add: (pipeline: ReturnType<typeof redis.pipeline>, id: number) => void,
) {
	for (let i = 0; i < ids.length; i += 10_000)
		await pipelineBySlot(redis, ids.slice(i, i + 10_000), keys.connFeed, add)
}

// Every follower has read its feed recently: fan-out writes to live feeds only.
await forEachBatch(followers, (p, id) => p.set(keys.connLive(id), '1', 'EX', 3600))

const worker = Bun.spawn([process.execPath, 'src/index.ts'], {
	env: {
		...process.env,
		ROLE: 'worker',
		LOG_LEVEL: 'warn',
		NODE_ENV: 'production',
		JWT_SECRET: 'x'.repeat(32),
		SECRET_KEY: 'y'.repeat(32),
	},
	stdout: 'inherit',
	stderr: 'inherit',
})

async function allHold(ids: number[], postId: string): Promise<boolean> {
	let missing = 0
	for (let i = 0; i < ids.length; i += 10_000)
		await Promise.all(
			ids.slice(i, i + 10_000).map(async (id) => {
				if ((await redis.zscore(keys.connFeed(id), postId)) === null) missing++
			}),
		)
	return missing === 0
}

async function fanOutOnce(author: { id: number; token: string }, n: number): Promise<number> {
	const started = performance.now()
	const reply = await app.handle(
		new Request('http://bench/feed/post', {
			method: 'POST',
			headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
			body: JSON.stringify({ text: `fan-out to ${n}` }),
		}),
	)
	const body = (await reply.json()) as { data: { post: { _id: string } } }
	const postId = body.data.post._id
	// The job row's done_at is set after the last batch reached Redis.
	for (;;) {
		const [job] = await sql`select done_at from fanout_jobs where post_id = ${postId}`
		if (job?.done_at) break
		await Bun.sleep(1)
	}
	const ms = performance.now() - started
	if (!(await allHold(followers.slice(0, n), postId)))
		throw new Error('a follower is missing the post')
	return ms
}

async function baselineOnce(n: number): Promise<number> {
	const postId = newId()
	const started = performance.now()
	await forEachBatch(followers.slice(0, n), (p, id) =>
		p.zadd(keys.connFeed(id), Date.now(), postId),
	)
	return performance.now() - started
}

/** Memory per entry of full feeds (1,000 entries), filled by the real fan-out command. */
async function memoryFigures() {
	const sample = followers.slice(0, 20)
	const fill = async () => {
		await forEachBatch(sample, (p, id) => p.del(keys.connFeed(id)))
		for (let i = 0; i < CONN_FEED_MAX; i++) {
			const postId = newId()
			await forEachBatch(sample, (p, id) => queueAdd(p, id, postId, Date.now() + i))
		}
		let bytes = 0
		for (const id of sample)
			bytes += Number(await redis.memory('USAGE', keys.connFeed(id), 'SAMPLES', 0))
		return bytes / sample.length / CONN_FEED_MAX
	}
	const [, original] = (await redis.config('GET', 'zset-max-listpack-entries')) as [string, string]
	const perEntryDefault = await fill()
	await redis.config('SET', 'zset-max-listpack-entries', '1024')
	const perEntryListpack = await fill()
	await redis.config('SET', 'zset-max-listpack-entries', original)
	const oneEntry = Number(
		await redis.memory('USAGE', keys.connFeed(followers[50_000] as number), 'SAMPLES', 0),
	)

	return { original, perEntryDefault, perEntryListpack, oneEntry }
}

try {
	await Bun.sleep(1500) // worker start-up (migrations, LISTEN)
	const results: { n: number; fanout: number; baseline: number; all: number[] }[] = []
	for (const n of sizes) {
		const author = await makeAuthor(n)
		await fanOutOnce(author, n) // warm-up
		const times: number[] = []
		const base: number[] = []
		for (let r = 0; r < runs; r++) {
			times.push(await fanOutOnce(author, n))
			base.push(await baselineOnce(n))
		}
		results.push({ n, fanout: median(times), baseline: median(base), all: times })
		log(
			`${n}: fan-out ${times.map((t) => t.toFixed(0)).join(', ')} ms; bare ZADD pipeline ${base.map((t) => t.toFixed(0)).join(', ')} ms`,
		)
	}

	console.log(
		`\nfan-out benchmark on ${cluster ? `a 3-node Redis Cluster (${cluster.nodes})` : 'a standalone Redis'}: worker in its own process, median of ${runs} runs (after one warm-up)`,
	)
	console.log(
		`${'followers'.padEnd(12)}${'fan-out ms'.padStart(12)}${'bare ZADD ms'.padStart(14)}${'target ms'.padStart(11)}`,
	)
	for (const r of results) {
		console.log(
			`${String(r.n).padEnd(12)}${r.fanout.toFixed(0).padStart(12)}${r.baseline.toFixed(0).padStart(14)}${String(r.n === 10_000 ? 250 : 2500).padStart(11)}`,
		)
	}
	if (!cluster) {
		const { original, perEntryDefault, perEntryListpack, oneEntry } = await memoryFigures()
		console.log(
			`memory per feed entry, 1,000-entry feed: ${perEntryDefault.toFixed(1)} B with zset-max-listpack-entries ${original} (skiplist), ${perEntryListpack.toFixed(1)} B with 1024 (listpack); target <= 100 B`,
		)
		console.log(
			`a feed holding ${runs + 1} posts after this run: ${oneEntry} B in total (key overhead included)`,
		)
	}
} finally {
	worker.kill('SIGTERM')
	await worker.exited
	await forEachBatch(followers, (p, id) => p.del(keys.connFeed(id), keys.connLive(id)))
	await sql.end()
	redis.disconnect()
	await cluster?.stop()
}
