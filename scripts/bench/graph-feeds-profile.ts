// Profiling aid for bench:graph-feeds: the same seed and server (its database must be
// seeded: run the bench once), each path of PROFILE_PATH (space-separated) under
// autocannon, 64 connections, BENCH_SECONDS (8) each; BENCH_SERVER_FLAGS go to the
// server's bun (harness.ts), e.g. a CPU profile of the connection page:
//   PROFILE_PATH='/feed/connection?page=1&page_size=20' \
//   BENCH_SERVER_FLAGS='--cpu-prof-md --cpu-prof-dir=/tmp/prof' bun run scripts/bench/graph-feeds-profile.ts
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_d'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
process.env.DATA_DIR ??= '.data/bench'
const { benchLog: log, measure, startBenchServer } = await import('./harness')
const { sql } = await import('../../src/lib/db')
const { redis } = await import('../../src/lib/redis')
const { seedGraphBench } = await import('./graph-feeds-seed')
const { token } = await seedGraphBench(log)
const { child, port } = await startBenchServer('scripts/bench/graph-feeds-server.ts')
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
for (const path of (process.env.PROFILE_PATH ?? '/feed/connection?page=1&page_size=20').split(' '))
	await measure({ port, token, connections: 64, seconds }, path, path)
child.kill('SIGTERM')
await child.exited
await sql.end()
redis.disconnect()
