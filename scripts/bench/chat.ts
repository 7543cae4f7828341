// Chat benchmark: a room with 1,000 participants and 20,000 messages, and rooms of 10
// and 100 participants, in its own database (plaza_bench_chat, made anew each run); the
// server runs in a child process and autocannon (64 connections) measures, in the same run:
//   (a) a bare Elysia server in its own process (bare-server.ts, started by the
//       harness) — the ceiling of this machine, sampled in every round; every ÷bare is
//       over it,
//   (b) GET /conversation newest page (20) as one participant, and read by 64 different
//       participants in turn (each request the next one's token),
//   (c) GET /conversation scrolled page (20 older than a conversation mid-history),
//   (g) GET /feed/user/activity page 1 (20) of a member with 120 activities (120 posts,
//       each liked by two others), 64 connections,
//   (d)/(e) poll submits by 64 voters against the bare server driven by the same client
//       loop, then the poll's totals checked exactly (chat-votes.ts),
//   (f) POST /conversation by 16 writers (participants in turn) into the rooms of 10,
//       100 and 1,000, beside the same 16 connections doing one-row INSERT transactions
//       straight to Postgres (the baseline of bench:writes); afterwards the newest page of
//       the room of 1,000 is read and created_at must never step back between neighbours.
// The read rows and the write rows each run in BENCH_ROUNDS rounds, interleaved; the
// table keeps each row's best round.
// Run: npm run bench:chat   (BENCH_SECONDS=10, BENCH_CONNECTIONS=64, BENCH_ROUNDS=2,
// BENCH_WARM_SECONDS=2, BENCH_MESSAGES=20000, BENCH_MEMBERS=1000; BENCH_CHAT_WRITES=0
// leaves out the write rows; BENCH_ROWS=writes runs only the write rows (f), with neither
// the read rows, the votes nor the ceiling)
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
	measureWith: measureHooked,
	printCeiling,
	printHeader,
	printRow,
	rowOf,
	startBenchServer,
	startCeiling,
	warmSeconds,
} = await import('./harness')
type Row = import('./harness').Row
type Ceiling = import('./harness').Ceiling
const autocannon = (await import('autocannon')).default as unknown as (
	o: unknown,
) => Promise<import('autocannon').Result>
const { dropDatabase, ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { signAccessToken } = await import('../../src/lib/tokens')
const { seedChat } = await import('./chat-seed')
const { measureVotes } = await import('./chat-votes')
const { insertBaseline } = await import('./insert-baseline')
const { createPost } = await import('../../src/modules/posts/service')
const { togglePostLike } = await import('../../src/modules/posts/reactions/service')

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
// The machine may be shared: each case runs this many times (interleaved) and keeps its best run.
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const chatWrites = process.env.BENCH_CHAT_WRITES !== '0'
const onlyWrites = process.env.BENCH_ROWS === 'writes'
const WRITERS = 16
const READERS = 64
const size = {
	members: Number(process.env.BENCH_MEMBERS ?? 1000),
	messages: Number(process.env.BENCH_MESSAGES ?? 20_000),
	smallRooms: [10, 100],
}

await dropDatabase(process.env.DATABASE_URL)
await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const bench = await seedChat(size, log)
const tokenOf = (index: number) =>
	signAccessToken(
		{
			sub: bench.uuids[index] as string,
			uid: bench.userIds[index] as number,
			cid: bench.communityId,
			role: 'member',
		},
		120,
	)
const token = await tokenOf(1)
// Readers of the newest page: 64 participants of the big room (members 1…64).
const readerTokens = await Promise.all(Array.from({ length: READERS }, (_, i) => tokenOf(i + 1)))
let nextReader = 0
const manyReaders = {
	setupRequest: (request: { headers: Record<string, string> }) => {
		const reader = readerTokens[nextReader++ % readerTokens.length]
		request.headers = { ...request.headers, authorization: `Bearer ${reader}` }
		return request
	},
}

const activityToken = onlyWrites ? '' : await seedActivities()
const ceiling = onlyWrites ? null : await startCeiling()
const { child, port } = await startBenchServer('scripts/bench/chat-server.ts')
log(`server on port ${port}, ${connections} connections, ${seconds} s per run`)
const load = { port, token, connections, seconds }
const measure = (name: string, path: string) => measureWith(load, name, path)
const room = `chatroom_id=${bench.chatroomId}&paginate_by=20`
const loadAverage = async () =>
	(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
const best = (a: Row | undefined, b: Row) => (a && a.rps >= b.rps ? a : b)

/** Member 200 gets 120 activities: 120 posts of theirs, each liked by members 201 and 202. */
async function seedActivities(): Promise<string> {
	const started = performance.now()
	const session = (i: number) => ({
		userId: bench.userIds[i] as number,
		uuid: bench.uuids[i] as string,
		communityId: bench.communityId,
		role: 'member' as const,
	})
	const [owner, likers] = [session(200), [session(201), session(202)]]
	for (let i = 0; i < 120; i++) {
		const { post } = await createPost(owner, { text: `activity post ${i}` })
		for (const liker of likers) await togglePostLike(liker, post._id)
	}
	log(`seeded 120 activities in ${Math.round(performance.now() - started)} ms`)
	return tokenOf(200)
}

/** Reads the newest page of the room and fails the run if created_at steps back between neighbours. */
async function newestPageInOrder(chatroomId: string): Promise<boolean> {
	const reply = await fetch(
		`http://127.0.0.1:${port}/conversation?chatroom_id=${chatroomId}&paginate_by=100`,
		{ headers: { authorization: `Bearer ${token}` } },
	)
	const body = (await reply.json()) as {
		data: { conversations: { id: string; created_at: number }[] }
	}
	const page = body.data.conversations
	const ordered = [...page].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
	const backs = ordered.filter((c, i) => i > 0 && c.created_at < (ordered[i - 1]?.created_at ?? 0))
	console.log(
		`created_at on the newest ${page.length} of the room of ${size.members}: ${backs.length === 0 ? 'never steps back between neighbours' : `steps back ${backs.length} times`}`,
	)
	return backs.length === 0
}

/**
 * 16 writers post into `chatroomId` for `seconds`, each request by the next of the
 * room's first 16 participants (the room of 10: its 10, in turn), after the warm-up.
 */
async function writeRow(participants: number, chatroomId: string): Promise<Row> {
	const writers = await Promise.all(
		Array.from({ length: Math.min(WRITERS, participants) }, (_, i) => tokenOf(i)),
	)
	let n = 0
	const run = (duration: number) =>
		autocannon({
			url: `http://127.0.0.1:${port}`,
			connections: WRITERS,
			duration,
			requests: [
				{
					method: 'POST',
					path: '/conversation',
					headers: { 'content-type': 'application/json' },
					setupRequest: (request: { headers: Record<string, string>; body?: string }) => {
						const i = n++
						request.headers = {
							...request.headers,
							authorization: `Bearer ${writers[i % writers.length]}`,
						}
						request.body = JSON.stringify({ chatroom_id: chatroomId, text: `bench message ${i}` })
						return request
					},
				},
			],
		})
	if (warmSeconds > 0) await run(warmSeconds)
	const row = rowOf(`(f) POST /conversation, room of ${participants}`, await run(seconds))
	await noticesDrained(participants)
	return row
}

/** Waits (at most a minute) until the worker expanded every message's notice; logs how long. */
async function noticesDrained(participants: number): Promise<void> {
	const started = performance.now()
	let left = 0
	do {
		;[{ left }] = (await sql`select count(*)::int as left from chat_notices`) as unknown as {
			left: number
		}[]
		if (left > 0) await Bun.sleep(100)
	} while (left > 0 && performance.now() - started < 60_000)
	log(
		`(f) room of ${participants}: notices expanded ${((performance.now() - started) / 1000).toFixed(1)} s after the run${left > 0 ? `, ${left} still waiting` : ''}`,
	)
}

/** The read rows (a)–(c), (g) and the votes (d)/(e), beside the ceiling. */
async function readRows(ceiling: Ceiling): Promise<void> {
	let bare: Row | undefined
	let newest: Row | undefined
	let newestMany: Row | undefined
	let scrolled: Row | undefined
	let activity: Row | undefined
	for (let round = 0; round < rounds; round++) {
		bare = best(bare, await ceiling.measure(connections, seconds, '(a) bare server (own process)'))
		newest = best(newest, await measure('(b) newest page, 1 reader', `/conversation?${room}`))
		newestMany = best(
			newestMany,
			await measureHooked(
				load,
				`(b) newest page, ${READERS} readers in turn`,
				`/conversation?${room}`,
				manyReaders,
			),
		)
		scrolled = best(
			scrolled,
			await measure(
				'(c) scrolled page',
				`/conversation?${room}&conversation_id=${bench.middleId}&scroll_direction=0`,
			),
		)
		activity = best(
			activity,
			await measureWith(
				{ ...load, token: activityToken },
				'(g) activity page 1, 120 activities',
				'/feed/user/activity?page=1&page_size=20',
			),
		)
	}
	if (!bare || !newest || !newestMany || !scrolled || !activity) throw new Error('no runs')
	console.log(
		`\nchat benchmark: ${size.members} participants, ${size.messages} messages, ${connections} connections, ${seconds} s/run, best of ${rounds}`,
	)
	printHeader()
	printRow(bare)
	printRow(newest, bare)
	printRow(newestMany, bare)
	printRow(scrolled, bare)
	printRow(activity, bare)
	console.log(
		`machine: ${navigator.hardwareConcurrency} cores, load average ${await loadAverage()}`,
	)
	console.log('targets: (b) with 64 readers and (g) ÷bare >= 0.20, p99 <= 25 ms')
	const {
		bare: client,
		votes,
		exact,
	} = await measureVotes({ port, barePort: ceiling.port, connections, seconds }, bench)
	printRow(client)
	printRow(votes, client)
	console.log(
		`target: (e) >= 2,000 votes/s; totals afterwards ${exact.ok ? 'EXACT' : 'WRONG'}: counted ${exact.counted.join('/')} expected ${exact.expected.join('/')} (${exact.text}); (e)'s ÷bare is over (d)`,
	)
	if (!exact.ok) process.exitCode = 1
}

/** The write rows (f) beside the INSERT loop, then the created_at order of the big room. */
async function writeRows(): Promise<void> {
	let baseline: Row | undefined
	const written = new Map<number, Row>()
	for (let round = 0; round < rounds; round++) {
		baseline = best(baseline, await insertBaseline(WRITERS, seconds, warmSeconds))
		for (const { participants, chatroomId } of [...bench.rooms].sort(
			(a, b) => a.participants - b.participants,
		))
			written.set(
				participants,
				best(written.get(participants), await writeRow(participants, chatroomId)),
			)
	}
	if (!baseline) throw new Error('no runs')
	console.log(`\nchat writes: ${WRITERS} writers, ${seconds} s/run, best of ${rounds}`)
	printHeader()
	printRow(baseline)
	for (const row of written.values()) printRow(row, undefined, baseline)
	const rates = [...written.entries()].sort((a, b) => a[0] - b[0])
	const [smallest, largest] = [rates[0], rates[rates.length - 1]]
	if (smallest && largest)
		console.log(
			`room of ${largest[0]} ÷ room of ${smallest[0]}: ${(largest[1].rps / Math.max(1, smallest[1].rps)).toFixed(3)} (target >= 0.8); ÷base is over the INSERT loop (target >= 0.10 in the room of ${largest[0]}, p99 <= 50 ms)`,
		)
	console.log(
		`machine: ${navigator.hardwareConcurrency} cores, load average ${await loadAverage()}`,
	)
	const big = bench.rooms.find((r) => r.participants === size.members)
	if (big && !(await newestPageInOrder(big.chatroomId))) process.exitCode = 1
}

try {
	if (ceiling) await readRows(ceiling)
	if (chatWrites) await writeRows()
	if (ceiling) printCeiling(ceiling)
} finally {
	ceiling?.stop()
	child.kill()
	await sql.end()
	redis.disconnect()
}
