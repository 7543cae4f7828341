// Notification benchmark, in its own database (plaza_bench_n) and Redis db 12 (shared
// with the webhook bench, whose keys are distinct):
//  1. GET /feed/user/activity page 1 (20 grouped activities of a viewer with 100) against
//     the ceiling, a bare Elysia server in its own process (bare-server.ts, started by
//     the harness), and the universal feed page of the same 20 posts for reference, 64
//     connections (autocannon), in BENCH_ROUNDS=2 interleaved rounds, best of each;
//  2. pushes/s end to end for one custom activity to 10,000 recipients with one device
//     each: from the POST /feed/user/activity request to the last message received by
//     a local fake FCM (token exchange verified), with the push engine in a worker
//     process (ROLE=worker); checks exactly 10,000 distinct devices got one message.
// Run: npm run bench:notifications   (BENCH_RECIPIENTS=10000 BENCH_SECONDS=10
// BENCH_ROUNDS=2 BENCH_WARM_SECONDS=2)
export {}

const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
const fcmPort = probe.port
probe.stop(true)
process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_n'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.LOG_LEVEL = 'warn'
process.env.DATA_DIR ??= '.data/bench'
process.env.FCM_BASE_URL = `http://127.0.0.1:${fcmPort}`
process.env.PUSH_ALLOWED_HOSTS = `127.0.0.1:${fcmPort}`
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'

const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { config } = await import('../../src/config')
const { signAccessToken } = await import('../../src/lib/tokens')
const { createProject, savePushCredentials } = await import('../../src/modules/projects/service')
const { findCommunity } = await import('../../src/modules/projects/repo')
const { createPost } = await import('../../src/modules/posts/service')
const { togglePostLike } = await import('../../src/modules/posts/reactions/service')
const { startFakeFcm } = await import('../../test/support/fake-fcm')
const { benchLog, measure, printCeiling, printHeader, printRow, startBenchServer, startCeiling } =
	await import('./harness')
type Row = import('./harness').Row

const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 10_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

await ensureDatabase(config.DATABASE_URL)
await migrate()
const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
console.log(`machine: ${navigator.hardwareConcurrency} cores, load average ${load} at start`)

const project = await createProject({
	name: 'bench-notifications',
	ownerCountryCode: '1',
	ownerMobile: `6${Date.now()}`.slice(0, 11),
})
const communityId = project.community_id

async function member(name: string, role: 'member' | 'cm' = 'member') {
	const [row] = await sql`
		insert into users (uuid, community_id, user_unique_id, name, role)
		values (gen_random_uuid(), ${communityId}, ${`${name}-${Date.now()}`}, ${name}, ${role})
		returning id::float8 as id, uuid::text as uuid`
	const session = { userId: row.id as number, uuid: row.uuid as string, communityId, role }
	return {
		session,
		token: await signAccessToken({
			sub: session.uuid,
			uid: session.userId,
			cid: communityId,
			role,
		}),
	}
}

// ---- 1. the activity feed ---------------------------------------------------------
benchLog('seeding 100 posts with 5 likes each for one viewer')
const viewer = await member('Viewer')
const likers = await Promise.all(Array.from({ length: 5 }, (_, i) => member(`Liker ${i}`)))
for (let i = 0; i < 100; i++) {
	const { post } = await createPost(viewer.session, { text: `post ${i}` })
	for (const liker of likers) await togglePostLike(liker.session, post._id)
}
const ceiling = await startCeiling()
const { child, port } = await startBenchServer('scripts/bench/notifications-server.ts')
try {
	const options = { port, token: viewer.token, connections: 64, seconds: SECONDS }
	const best = (a: Row | undefined, b: Row) => (a && a.rps >= b.rps ? a : b)
	let bare: Row | undefined
	let feed: Row | undefined
	let universal: Row | undefined
	for (let round = 0; round < ROUNDS; round++) {
		bare = best(bare, await ceiling.measure(64, SECONDS))
		feed = best(
			feed,
			await measure(
				options,
				'activity feed page 1 (20)',
				'/feed/user/activity?page=1&page_size=20',
			),
		)
		// The universal feed page of the same server and viewer: the feed engine's own cost
		// for 20 posts, the floor of a page that embeds 20 posts.
		universal = best(
			universal,
			await measure(options, 'universal feed page 1 (20)', '/feed/universal?page=1&page_size=20'),
		)
	}
	if (!bare || !feed || !universal) throw new Error('no runs')
	printHeader()
	printRow(bare)
	printRow(universal, bare)
	printRow(feed, bare)
	printCeiling(ceiling)
	console.log(
		`activity feed: ${(feed.rps / bare.rps).toFixed(3)} of the bare server (target >= 0.20), p99 ${feed.p99} ms (target <= 25 ms); best of ${ROUNDS}`,
	)

	// ---- 2. pushes to 10,000 recipients --------------------------------------------
	const fake = startFakeFcm(fcmPort)
	const community = await findCommunity(sql, communityId)
	if (!community) throw new Error('no community')
	await savePushCredentials(community, fake.serviceAccount('bench') as never)
	const cm = await member('Manager', 'cm')
	benchLog(`seeding ${RECIPIENTS} recipients with one device each`)
	const rows = await sql`
		insert into users (uuid, community_id, user_unique_id, name)
		select gen_random_uuid(), ${communityId}, 'r-' || g || '-' || ${Date.now()}, 'Recipient ' || g from generate_series(1, ${RECIPIENTS}) g
		returning id::float8 as id, uuid::text as uuid`
	await sql`
		insert into devices (community_id, device_id, user_id, token, platform, created_at, updated_at)
		select ${communityId}, 'dev-' || id, id, 'tok-' || id, case when id % 2 = 0 then 'an' else 'ios' end, 0, 0
		from unnest(${rows.map((r) => r.id)}::int8[]) id`
	const worker = Bun.spawn([process.execPath, 'src/index.ts'], {
		cwd: `${import.meta.dir}/../..`,
		env: { ...process.env, ROLE: 'worker', NODE_ENV: 'development' } as Record<string, string>,
		stdout: 'ignore',
		stderr: 'inherit',
	})
	await Bun.sleep(1500)
	const started = performance.now()
	const reply = await fetch(`http://127.0.0.1:${port}/feed/user/activity`, {
		method: 'POST',
		headers: { authorization: `Bearer ${cm.token}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			action: 'custom_activity',
			action_on: rows.map((r) => r.uuid),
			entity_type: 'user',
			entity_id: cm.session.uuid,
			activity_text: 'The bench says hello',
		}),
	})
	if (reply.status !== 200)
		throw new Error(`custom activity: ${reply.status} ${await reply.text()}`)
	const accepted = (performance.now() - started) / 1000
	const until = Date.now() + 180_000
	while (fake.messages.length < RECIPIENTS && Date.now() < until) await Bun.sleep(5)
	const seconds = (performance.now() - started) / 1000
	await Bun.sleep(1000)
	const tokens = new Set(fake.messages.map((m) => m.token))
	console.log(
		`pushes: ${fake.messages.length} received (${tokens.size} distinct devices, expected ${RECIPIENTS}) ` +
			`in ${seconds.toFixed(2)} s: ${Math.round(fake.messages.length / seconds)} pushes/s end to end ` +
			`(target >= 1,000/s; the API call took ${accepted.toFixed(2)} s; ${fake.exchanges} OAuth exchange(s))`,
	)
	worker.kill('SIGTERM')
	await worker.exited
	fake.stop()
} finally {
	ceiling.stop()
	child.kill()
	await sql.end()
	process.exit(0)
}
