// Chat benchmark: a room with 1,000 participants and 100,000 messages in its own
// database (plaza_bench_chat, made anew each run); the server runs in a child process
// and autocannon (64 connections) measures, in the same run:
//   (a) a bare Elysia route returning a constant — the ceiling of this machine,
//   (b) GET /conversation newest page (20) as a participant — the hot read,
//   (c) GET /conversation scrolled page (20 older than a conversation mid-history),
//   (d)/(e) poll submits by 64 voters against the bare route from the same client loop,
//   then the poll's totals checked exactly (chat-votes.ts).
// Run: npm run bench:chat   (BENCH_SECONDS=10, BENCH_CONNECTIONS=64, BENCH_ROUNDS=2,
// BENCH_MESSAGES=100000, BENCH_MEMBERS=1000)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_chat'
// db 12 is shared with the webhooks bench; chat keys are namespaced and never flushed
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'

const {
	benchLog: log,
	measure: measureWith,
	printHeader,
	printRow,
	startBenchServer,
} = await import('./harness')
type Row = import('./harness').Row
const { dropDatabase, ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { signAccessToken } = await import('../../src/lib/tokens')
const { seedChat } = await import('./chat-seed')
const { measureVotes } = await import('./chat-votes')

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
// The machine may be shared: each case runs this many times (interleaved) and keeps its best run.
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const size = {
	members: Number(process.env.BENCH_MEMBERS ?? 1000),
	messages: Number(process.env.BENCH_MESSAGES ?? 100_000),
}

await dropDatabase(process.env.DATABASE_URL)
await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const bench = await seedChat(size, log)
const viewer = { id: bench.userIds[1] as number, uuid: bench.uuids[1] as string }
const token = await signAccessToken(
	{ sub: viewer.uuid, uid: viewer.id, cid: bench.communityId, role: 'member' },
	120,
)

const { child, port } = await startBenchServer('scripts/bench/chat-server.ts')
log(`server on port ${port}, ${connections} connections, ${seconds} s per run`)
const load = { port, token, connections, seconds }
const measure = (name: string, path: string) => measureWith(load, name, path)
const room = `chatroom_id=${bench.chatroomId}&paginate_by=20`
const best = (a: Row | undefined, b: Row) => (a && a.rps >= b.rps ? a : b)

try {
	let bare: Row | undefined
	let newest: Row | undefined
	let scrolled: Row | undefined
	for (let round = 0; round < rounds; round++) {
		bare = best(bare, await measure('(a) bare route', '/bench/bare'))
		newest = best(newest, await measure('(b) newest page', `/conversation?${room}`))
		scrolled = best(
			scrolled,
			await measure(
				'(c) scrolled page',
				`/conversation?${room}&conversation_id=${bench.middleId}&scroll_direction=0`,
			),
		)
	}
	if (!bare || !newest || !scrolled) throw new Error('no runs')
	console.log(
		`\nchat benchmark: ${size.members} participants, ${size.messages} messages, ${connections} connections, ${seconds} s/run, best of ${rounds}`,
	)
	printHeader()
	printRow(bare)
	printRow(newest, bare)
	printRow(scrolled, bare)
	console.log('targets: (b)/(a) >= 20%, p99 <= 25 ms')
	const { bare: client, votes, exact } = await measureVotes({ port, connections, seconds }, bench)
	printRow(client)
	printRow(votes, client)
	console.log(
		`target: (e) >= 2,000 votes/s; totals afterwards ${exact.ok ? 'EXACT' : 'WRONG'}: counted ${exact.counted.join('/')} expected ${exact.expected.join('/')} (${exact.text})`,
	)
	if (!exact.ok) process.exitCode = 1
} finally {
	child.kill()
	await sql.end()
	redis.disconnect()
}
