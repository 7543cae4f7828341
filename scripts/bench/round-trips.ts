// How many Redis round trips one feed request waits for (issue 14: page 1 of a hot feed
// in ONE). The app runs in this process with its Redis connection through a counting
// TCP proxy: a round trip is a burst of commands sent after an answer came back. Each
// feed's page 1 is read a few times (warm), then one read is counted; requests go one
// at a time, so nothing else shares the connection.
// Run: bun run scripts/bench/round-trips.ts   (BENCH_DATABASE_URL, BENCH_REDIS_URL: db 13)
export {}

const upstream = new URL(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13')
let roundTrips = 0
let answered = true

const proxy = Bun.listen<{ peer?: import('bun').Socket; queued: Uint8Array[] }>({
	hostname: '127.0.0.1',
	port: 0,
	socket: {
		async open(client) {
			client.data = { queued: [] }
			client.data.peer = await Bun.connect({
				hostname: upstream.hostname,
				port: Number(upstream.port || 6379),
				socket: {
					data(_, bytes) {
						answered = true
						client.write(bytes)
					},
					close() {
						client.end()
					},
				},
			})
			for (const bytes of client.data.queued) client.data.peer.write(bytes)
		},
		data(client, bytes) {
			if (answered) roundTrips++
			answered = false
			if (client.data.peer) client.data.peer.write(bytes)
			else client.data.queued.push(new Uint8Array(bytes))
		},
		close(client) {
			client.data.peer?.end()
		},
	},
})

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_rt'
process.env.REDIS_URL = `redis://127.0.0.1:${proxy.port}${upstream.pathname}`
process.env.LOG_LEVEL = 'warn'
process.env.DATA_DIR ??= '.data/bench'

const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { drainFanOut } = await import('../../src/timelines/fanout')
const { api } = await import('../../test/support/http')
const { newCommunity, newUser } = await import('../../test/support/community')

await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const community = await newCommunity('round-trips')
const cm = await newUser(community, { role: 'cm' })
await api('PUT', '/community/settings', {
	token: cm.token,
	body: { community_settings: [{ setting_type: 'user_connection', enabled: true }] },
})
const [author, viewer] = [await newUser(community), await newUser(community)]
await api('POST', `/community/member/${author.uuid}/connection`, {
	token: viewer.token,
	body: { connection_type: 'one_way', connection_request_auto_accepted: true },
})
const topics = await api('POST', '/feed/topic', {
	token: cm.token,
	body: { names: [`rt-a-${Date.now()}`, `rt-b-${Date.now()}`] },
})
const topicIds = (topics.body.topics as { id: string }[]).map((t) => t.id)
for (let i = 0; i < 25; i++)
	await api('POST', '/feed/post', {
		token: author.token,
		body: { text: `post ${i}`, topic_ids: [topicIds[i % 2]] },
	})
await drainFanOut()

async function count(path: string): Promise<number> {
	for (let i = 0; i < 3; i++) await api('GET', path, { token: viewer.token })
	await Bun.sleep(50)
	roundTrips = 0
	const reply = await api('GET', path, { token: viewer.token })
	if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}`)
	return roundTrips
}

for (const path of [
	'/feed/universal?page=1&page_size=20',
	'/feed/connection?page=1&page_size=20',
	'/feed/personalised?page=1&page_size=20',
	'/feed/universal?page=5&page_size=20',
	`/feed/universal?page=1&page_size=20&topic_ids=${topicIds.join(',')}`,
])
	console.log(`${path}: ${await count(path)} Redis round trip(s), warm`)

// Page 1 right after a write elsewhere moved the feed version: the page is computed.
const { keys } = await import('../../src/lib/keys')
const universalPage1 = '/feed/universal?page=1&page_size=20'
for (let i = 0; i < 3; i++) await api('GET', universalPage1, { token: viewer.token })
await redis.incr(keys.feedVersion(community.communityId))
roundTrips = 0
await api('GET', universalPage1, { token: viewer.token })
console.log(`${universalPage1}: ${roundTrips} Redis round trip(s), changed since kept`)

await sql.end()
redis.disconnect()
proxy.stop(true)
