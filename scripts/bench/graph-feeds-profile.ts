// Profiling aid for bench:graph-feeds: the same seed and server (its database must be
// seeded: run the bench once), each path of PROFILE_PATH (space-separated) under
// autocannon, 64 connections, BENCH_SECONDS (8) each; PROFILE_ARGS go to the server's
// bun, e.g. a CPU profile of the connection page:
//   PROFILE_PATH='/feed/connection?page=1&page_size=20' \
//   PROFILE_ARGS='--cpu-prof-md --cpu-prof-dir=/tmp/prof' bun run scripts/bench/graph-feeds-profile.ts
// The server exits on SIGTERM through process.exit, so the profile is written.
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_d'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'
const { benchLog: log, measure } = await import('./harness')
const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { keys } = await import('../../src/lib/keys')
const { signAccessToken } = await import('../../src/lib/tokens')
const { rebuildCommunity } = await import('../../src/timelines/rebuild')
const { seed } = await import('./feeds-seed')
const size = { users: 5000, topics: 50, posts: 50_000, likes: 200_000, comments: 100_000 }
await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const bench = await seed(size, log)
const c = bench.communityId
await sql`
	insert into community_settings (community_id, setting_type, enabled, updated_at) values (${c}, 'user_connection', true, ${Date.now()})
	on conflict (community_id, setting_type) do update set enabled = true`
await sql`
	insert into connections (community_id, user_id, connection_id, connection_type, created_at)
	select ${c}, ${bench.viewerId}, id, 'one_way', 0 from users
	where community_id = ${c} and id <> ${bench.viewerId} order by hashtext(uuid::text) limit 300
	on conflict do nothing`
await rebuildCommunity(c)
await redis.del(keys.settings(c), keys.connLive(bench.viewerId), keys.persMeta(bench.viewerId))
const token = await signAccessToken(
	{ sub: bench.viewerUuid, uid: bench.viewerId, cid: c, role: 'member' },
	120,
)
const args = (process.env.PROFILE_ARGS ?? '').split(' ').filter(Boolean)
const server = `${import.meta.dir}/graph-feeds-server.ts`
const main = `process.on('SIGTERM', () => process.exit(0)); await import(${JSON.stringify(server)})`
const child = Bun.spawn([process.execPath, ...args, '-e', main], {
	env: { ...process.env },
	stdout: 'pipe',
	stderr: 'inherit',
})
const reader = child.stdout.getReader()
let text = ''
while (!/listening (\d+)/.test(text)) {
	const { value, done } = await reader.read()
	if (done) throw new Error('server exited')
	text += new TextDecoder().decode(value)
}
const port = Number(/listening (\d+)/.exec(text)?.[1])
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
for (const path of (process.env.PROFILE_PATH ?? '/feed/connection?page=1&page_size=20').split(' '))
	await measure({ port, token, connections: 64, seconds }, path, path)
child.kill('SIGTERM')
await child.exited
await sql.end()
redis.disconnect()
