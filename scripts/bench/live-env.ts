// Imported first by every live bench row: the process's database and Redis before any
// module of plaza reads its config. Its own database (BENCH_DATABASE_URL, default
// plaza_bench_live) and Redis db (BENCH_REDIS_URL, default db 13); limits that would
// otherwise refuse a bench's thousands of connections and requests lifted.
process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_live'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'
