// Row `kill`: BENCH_CLIENTS WebSockets (10,000) split between two api processes, over
// clients / 10 rooms, while BENCH_RATE events/s (1,000) are published for
// BENCH_KILL_SECONDS (20); a third of the way in, one api process is killed with
// SIGKILL. Its clients reconnect at once to the other with their cursors (the logic of
// docs/live.md's client). Each client de-duplicates by event id; the row counts events
// missed, events seen twice under different ids (duplicates a client could not remove),
// ids repeated (removed by de-duplication), order breaks, `reset` frames, and the time
// from each dropped socket's close to its `subscribed` on the survivor.
import './live-env'
import { liveScopes } from '../../src/live'
import { connectAll, type EventFrame, type LiveClient } from './live-client'
import {
	benchLog,
	community,
	envNumber,
	fmt,
	httpBase,
	type Member,
	makeRooms,
	PER_USER,
	pct,
	pick,
	publishAtRate,
	roomClients,
	row,
	settle,
	sql,
	startApis,
	stopAll,
	wsBase,
} from './live-common'

const CLIENTS = envNumber('BENCH_CLIENTS', 10_000)
const RATE = envNumber('BENCH_RATE', 1000)
const ROOMS = envNumber('BENCH_ROOMS', Math.max(1, Math.round(CLIENTS / 10)))
const SECONDS = envNumber('BENCH_KILL_SECONDS', 20)

interface Seen {
	ids: Set<string>
	numbers: Set<number>
	last: string
	outOfOrder: number
	repeats: number
}

/** Stream ids `ms-seq` in order. */
const after = (a: string, b: string) => {
	const [am, as] = a.split('-').map(Number) as [number, number]
	const [bm, bs] = b.split('-').map(Number) as [number, number]
	return am > bm || (am === bm && as > bs)
}

const { communityId, members } = await community('kill')
const apis = await startApis(2)
const [doomed, survivor] = apis as [(typeof apis)[0], (typeof apis)[0]]
try {
	const [cm] = await members(1, 'cm')
	const rooms = await makeRooms(httpBase(survivor), cm as Member, ROOMS)
	const readers = await members(Math.ceil(CLIENTS / PER_USER))
	const seen: Seen[] = Array.from({ length: CLIENTS }, () => ({
		ids: new Set(),
		numbers: new Set(),
		last: '0-0',
		outOfOrder: 0,
		repeats: 0,
	}))
	let measuring = false
	let resets = 0
	const dropped = new Map<number, number>()
	const resumeMs: number[] = []
	const failedResumes: string[] = []
	const onEvent = (c: LiveClient, e: EventFrame) => {
		if (!measuring) return
		const s = pick(seen, c.n)
		if (s.ids.has(e.id)) {
			s.repeats++
			return
		}
		if (!after(e.id, s.last)) s.outOfOrder++
		s.last = e.id
		s.ids.add(e.id)
		const n = /"n":(\d+)/.exec(e.text)?.[1]
		s.numbers.add(Number(n))
	}
	const clients = roomClients(CLIENTS, readers, rooms, ROOMS, {
		onEvent,
		onOther: (_c, f) => {
			if (f.type === 'reset') resets++
		},
		onDrop: (c) => {
			const closedAt = performance.now()
			dropped.set(c.n, closedAt)
			c.connect(wsBase(survivor)).then(
				() => resumeMs.push(performance.now() - closedAt),
				(error: Error) => failedResumes.push(error.message),
			)
		},
	})
	await connectAll(clients, (c) => wsBase(pick(apis, c.n % 2)), benchLog)

	const published = Array.from({ length: ROOMS }, () => [] as string[])
	benchLog(
		`publishing ${RATE} events/s for ${SECONDS} s; SIGKILL of one api after ${fmt(SECONDS / 3)} s`,
	)
	measuring = true
	const killing = Bun.sleep((SECONDS / 3) * 1000).then(() => {
		benchLog('kill -9 of api 1')
		return doomed.stop('SIGKILL')
	})
	const { sent } = await publishAtRate(
		RATE,
		SECONDS,
		(k) => liveScopes.chatroom(communityId, pick(rooms, k % ROOMS)),
		(k, id) => {
			if (id) pick(published, k % ROOMS).push(id)
		},
	)
	await killing
	const expectedOf = (n: number) => pick(published, n % ROOMS).length
	await settle(() => clients.every((c) => pick(seen, c.n).ids.size >= expectedOf(c.n)), 15_000)
	measuring = false

	let missed = 0
	let twice = 0
	let repeats = 0
	let outOfOrder = 0
	for (const c of clients) {
		const s = pick(seen, c.n)
		for (const id of pick(published, c.n % ROOMS)) if (!s.ids.has(id)) missed++
		twice += s.ids.size - s.numbers.size
		repeats += s.repeats
		outOfOrder += s.outOfOrder
	}
	resumeMs.sort((a, b) => a - b)
	const slowest = resumeMs.at(-1) ?? Number.NaN
	if (failedResumes.length > 0)
		benchLog(`resumes that failed: ${failedResumes.slice(0, 5).join('; ')}`)
	row(
		`kill -9 of an api process under ${fmt(RATE)} events/s, ${fmt(CLIENTS)} clients`,
		'0 missed, 0 duplicates after de-duplication, resumed ≤ 5 s',
		`${fmt(sent)} events; ${fmt(dropped.size)} clients dropped, ${fmt(resumeMs.length)} resumed (p50 ${fmt(pct(resumeMs, 0.5))} ms, max ${fmt(slowest)} ms), ${failedResumes.length} failed; missed ${missed}, duplicates ${twice} (ids repeated and removed: ${repeats}), out of order ${outOfOrder}, resets ${resets}`,
		missed === 0 &&
			twice === 0 &&
			failedResumes.length === 0 &&
			resumeMs.length === dropped.size &&
			dropped.size > 0 &&
			slowest <= 5000,
	)
	for (const c of clients) c.close()
} catch (error) {
	console.error(error)
	process.exitCode = 1
} finally {
	await stopAll(apis)
	await sql.end({ timeout: 5 })
	process.exit(process.exitCode ?? 0)
}
