// Test environment: its own database and Redis db, short webhook retry schedule,
// loopback webhooks allowed. Set before anything imports src/config.ts.
// The test database and Redis db are made anew on every run, so a run never depends
// on what an earlier one (or an older schema) left behind. They come from
// TEST_DATABASE_URL / TEST_REDIS_URL, never from DATABASE_URL / REDIS_URL, so a
// developer's own data is never wiped by running the tests.
process.env.NODE_ENV = 'test'
process.env.DATABASE_URL =
	process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_test'
process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/1'
// The "replica" is the same database through a role whose transactions are read-only:
// every test then proves that nothing sent to DATABASE_REPLICA_URL writes.
const REPLICA_ROLE = 'plaza_test_replica'
const replicaUrl = new URL(process.env.DATABASE_URL)
replicaUrl.username = REPLICA_ROLE
process.env.DATABASE_REPLICA_URL = replicaUrl.toString()
// TEST_REDIS_CLUSTER_NODES runs the suite on a Redis Cluster (.ci/run starts one); a
// developer's own REDIS_CLUSTER_NODES is never used (the run flushes it).
if (process.env.TEST_REDIS_CLUSTER_NODES)
	process.env.REDIS_CLUSTER_NODES = process.env.TEST_REDIS_CLUSTER_NODES
else delete process.env.REDIS_CLUSTER_NODES
process.env.DATA_DIR ??= '.data/test'
process.env.WEBHOOK_RETRY_SCHEDULE_MS ??= '200,400,800'
process.env.WEBHOOK_TIMEOUT_MS ??= '1500'
process.env.WEBHOOK_ALLOWED_CIDRS ??= '127.0.0.0/8,::1/128'
process.env.RATE_LIMIT_PER_MINUTE ??= '100000'
process.env.RATE_LIMIT_IP_PER_MINUTE ??= '1000000'
// Tests act as a load balancer: x-forwarded-for tells callers apart.
process.env.TRUST_PROXY_HOPS ??= '1'
process.env.MIN_VERSION_CODES ??= 'an:120'
// Small enough for a test to send a body over it.
process.env.IMPORT_MAX_BYTES ??= '1048576'
// Push tests run a local fake of the FCM token and send endpoints (test/support/fake-fcm.ts)
// on a port picked here, before src/config.ts reads FCM_BASE_URL and PUSH_ALLOWED_HOSTS.
if (!process.env.FAKE_FCM_PORT) {
	const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
	process.env.FAKE_FCM_PORT = String(probe.port)
	probe.stop(true)
}
process.env.FCM_BASE_URL ??= `http://127.0.0.1:${process.env.FAKE_FCM_PORT}`
process.env.PUSH_ALLOWED_HOSTS ??= `127.0.0.1:${process.env.FAKE_FCM_PORT}`
process.env.PUSH_RETRY_SCHEDULE_MS ??= '100,200,300,400'
process.env.PUSH_TIMEOUT_MS ??= '2000'

// On Citus (scripts/test-citus.sh) the database is made on every node by the cluster script,
// with the extension and the workers: dropping it here would lose both.
if (!process.env.TEST_CITUS) {
	const { dropDatabase, ensureDatabase } = await import('../../src/lib/db')
	await dropDatabase(process.env.DATABASE_URL)
	await ensureDatabase(process.env.DATABASE_URL)
}
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { masters } = await import('../../src/lib/redis-slots')
for (const node of await masters(redis)) await node.flushdb()
await migrate()
const { sql } = await import('../../src/lib/db')
await sql`
	do $$ begin
		create role plaza_test_replica login;
	exception when duplicate_object or unique_violation then null;
	end $$`
// Every user and cohort id of the run is past 2^32 (migration 0200 made them bigint):
// a column, cast or parse still 32-bit fails the test that reaches it.
await sql`select setval('users_id_seq', 5000000000), setval('cohorts_id_seq', 5000000000)`
await sql`alter role plaza_test_replica set default_transaction_read_only = on`
await sql`grant select on all tables in schema public to plaza_test_replica`
// Citus does not carry a grant on ALL TABLES to the shards on the workers, where the
// replica's reads run.
if (process.env.TEST_CITUS)
	await sql`select run_command_on_workers('grant select on all tables in schema public to plaza_test_replica')`

export {}
