// Live-update benchmark: two api processes (ROLE=api) on one Redis, BENCH_CLIENTS
// WebSocket clients split between them, each following one of BENCH_ROOMS chat rooms;
// this process publishes BENCH_RATE events/s through publishLive (the script a writer
// runs after its commit) for BENCH_SECONDS. Prints, from what the clients received:
// commit → receipt latency p50/p99 (the `at` of each event against its arrival), events
// and deliveries per second, missed and duplicate deliveries, and each api process's
// RSS per held connection. Its own database (plaza_bench_live) and Redis db
// (BENCH_REDIS_URL, default db 13).
// Run: npm run bench:live   (BENCH_CLIENTS=2000 BENCH_ROOMS=20 BENCH_RATE=500 BENCH_SECONDS=10)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_live'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'

const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { config } = await import('../../src/config')
const { signAccessToken } = await import('../../src/lib/tokens')
const { createProject } = await import('../../src/modules/projects/service')
const { liveScopes, publishLive } = await import('../../src/live')
const { spawnPlaza } = await import('../../test/support/process')
const { benchLog } = await import('./harness')

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000)
const ROOMS = Number(process.env.BENCH_ROOMS ?? 20)
const RATE = Number(process.env.BENCH_RATE ?? 500)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
/** The per-user limit is 10 connections per process: users enough for 5 per process each. */
const PER_USER = 10

await ensureDatabase(config.DATABASE_URL)
await migrate()
const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
console.log(`machine: ${navigator.hardwareConcurrency} cores, load average ${load} at start`)

const project = await createProject({
	name: 'bench-live',
	ownerCountryCode: '1',
	ownerMobile: `5${Date.now()}`.slice(0, 11),
})
const communityId = project.community_id

async function member(name: string, role: 'member' | 'cm' = 'member') {
	const [row] = await sql`
		insert into users (uuid, community_id, user_unique_id, name, role)
		values (gen_random_uuid(), ${communityId}, ${`${name}-${Date.now()}-${Math.random()}`}, ${name}, ${role})
		returning id, uuid::text as uuid`
	return signAccessToken({ sub: row.uuid, uid: row.id, cid: communityId, role })
}

const rss = async (pid: number) => {
	const status = await Bun.file(`/proc/${pid}/status`).text()
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
}

benchLog('starting two api processes')
const apis = await Promise.all([spawnPlaza('api'), spawnPlaza('api')])
const bases = apis.map((p) => `127.0.0.1:${p.port}`)
try {
	const cm = await member('Cm', 'cm')
	const roomIds: string[] = []
	for (let i = 0; i < ROOMS; i++) {
		const reply = await fetch(`http://${bases[0]}/chatroom`, {
			method: 'POST',
			headers: { authorization: `Bearer ${cm}`, 'content-type': 'application/json' },
			body: JSON.stringify({ title: `Room ${i}` }),
		})
		roomIds.push(((await reply.json()) as { data: { chatroom: { id: string } } }).data.chatroom.id)
	}
	const tokens = await Promise.all(
		Array.from({ length: Math.ceil(CLIENTS / PER_USER) }, (_, i) => member(`Reader ${i}`)),
	)
	const rssBefore = await Promise.all(apis.map((p) => rss(p.proc.pid)))

	benchLog(`connecting ${CLIENTS} clients`)
	const latencies: number[] = []
	const seen = new Map<string, Set<string>>()
	let duplicates = 0
	const closes: string[] = []
	let measuring = false
	const sockets: WebSocket[] = []
	for (let i = 0; i < CLIENTS; i += 100) {
		await Promise.all(
			Array.from({ length: Math.min(100, CLIENTS - i) }, async (_, k) => {
				const n = i + k
				const room = roomIds[n % ROOMS] as string
				const ws = new WebSocket(`ws://${bases[n % 2]}/live`, {
					headers: { authorization: `Bearer ${tokens[Math.floor(n / PER_USER)]}` },
				} as unknown as string[])
				const ids = new Set<string>()
				seen.set(String(n), ids)
				ws.onclose = (e) => closes.push(`${n}:${e.code}`)
				await new Promise<void>((resolve, reject) => {
					ws.onopen = () =>
						ws.send(JSON.stringify({ type: 'subscribe', scope: `chatroom:${room}` }))
					ws.onerror = () => reject(new Error('socket refused'))
					ws.onmessage = (m) => {
						const text = String(m.data)
						if (text.startsWith('{"type":"subscribed"')) return resolve()
						if (!measuring || !text.startsWith('{"type":"event"')) return
						const f = JSON.parse(text) as { id: string; event: { at: number } }
						if (ids.has(f.id)) duplicates++
						ids.add(f.id)
						latencies.push(Date.now() - f.event.at)
					}
				})
				sockets.push(ws)
			}),
		)
	}
	const rssAfter = await Promise.all(apis.map((p) => rss(p.proc.pid)))

	benchLog(`publishing ${RATE} events/s for ${SECONDS} s`)
	measuring = true
	const perRoom = new Map<string, number>()
	const started = performance.now()
	let sent = 0
	while (performance.now() - started < SECONDS * 1000) {
		const due = Math.floor(((performance.now() - started) / 1000) * RATE)
		const batch: Promise<unknown>[] = []
		for (; sent < due; sent++) {
			const room = roomIds[sent % ROOMS] as string
			perRoom.set(room, (perRoom.get(room) ?? 0) + 1)
			batch.push(
				publishLive(liveScopes.chatroom(communityId, room), { type: 'bench', data: { n: sent } }),
			)
		}
		await Promise.all(batch)
		await Bun.sleep(2)
	}
	const elapsed = (performance.now() - started) / 1000
	await Bun.sleep(1000)
	measuring = false

	const expected = [...Array(CLIENTS).keys()].reduce(
		(sum, n) => sum + (perRoom.get(roomIds[n % ROOMS] as string) ?? 0),
		0,
	)
	const delivered = [...seen.values()].reduce((sum, ids) => sum + ids.size, 0)
	latencies.sort((a, b) => a - b)
	const pct = (p: number) =>
		latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]
	const perConnection = rssAfter.map((after, i) =>
		Math.round((after - (rssBefore[i] as number)) / (CLIENTS / 2) / 1024),
	)
	console.log(`| case | result |`)
	console.log(`|---|---|`)
	console.log(`| clients (2 api processes, ${ROOMS} rooms) | ${CLIENTS} |`)
	console.log(
		`| events published | ${sent} in ${elapsed.toFixed(1)} s (${Math.round(sent / elapsed)}/s) |`,
	)
	console.log(`| deliveries | ${delivered} of ${expected} (${Math.round(delivered / elapsed)}/s) |`)
	console.log(`| missed / duplicates | ${expected - delivered} / ${duplicates} |`)
	console.log(`| commit → receipt p50 / p99 | ${pct(0.5)} ms / ${pct(0.99)} ms |`)
	const silent = [...seen].filter(([, ids]) => ids.size === 0).map(([n]) => Number(n))
	console.log(`| closed during the run | ${closes.length} |`)
	const reprobed = apis.flatMap((p) => p.stdout).filter((l) => l.includes('did not hear its probe'))
	console.log(`| subscriptions proven only on a retry | ${reprobed.length} |`)
	if (silent.length > 0)
		benchLog(
			`clients that received nothing: ${silent.length}, e.g. ${silent.slice(0, 12).join(' ')} (room = n % ${ROOMS}, api = n % 2)`,
		)
	console.log(`| RSS per held connection (api 1, api 2) | ${perConnection.join(' KB, ')} KB |`)
	for (const ws of sockets) ws.close()
} finally {
	await Promise.all(apis.map((p) => p.stop('SIGKILL')))
	await sql.end({ timeout: 5 })
	process.exit(0)
}
