// Row `badge`: BENCH_BADGE_MEMBERS members (5) each hold a WebSocket on `me` and churn
// through the HTTP API of two api processes for BENCH_CHURN_SECONDS (600): like or
// unlike another's post, comment on it, mark one of their own activities read (an id
// their `me` scope announced), now and then mark all read. Every
// BENCH_SAMPLE_SECONDS (10) the churn pauses: the requests in flight finish, then no
// `me` frame for 500 ms (the badge is published after the commit, without holding the
// answer, so it lands just after it), then each member's last `badge` is compared
// with what GET /feed/user/activity/unread_count answers. Then the churn resumes.
import './live-env'
import { connectAll, LiveClient } from './live-client'
import {
	benchLog,
	community,
	envNumber,
	fmt,
	httpBase,
	pick,
	row,
	settle,
	sql,
	startApis,
	stopAll,
	wsBase,
} from './live-common'

const MEMBERS = envNumber('BENCH_BADGE_MEMBERS', 5)
const SECONDS = envNumber('BENCH_CHURN_SECONDS', 600)
const SAMPLE_SECONDS = envNumber('BENCH_SAMPLE_SECONDS', 10)
const POSTS_EACH = 5

const { members } = await community('badge')
const apis = await startApis(2)
try {
	const people = await members(MEMBERS)
	const call = async (token: string, method: string, path: string, body?: object) => {
		const api = pick(apis, Math.floor(Math.random() * apis.length))
		const reply = await fetch(`${httpBase(api)}${path}`, {
			method,
			headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
			body: body ? JSON.stringify(body) : undefined,
		})
		// biome-ignore lint/suspicious/noExplicitAny: JSON replies of several routes
		return { status: reply.status, body: (await reply.json()) as { data?: any } }
	}
	const posts: { owner: number; id: string }[] = []
	for (const [owner, p] of people.entries())
		for (let i = 0; i < POSTS_EACH; i++) {
			const made = await call(p.token, 'POST', '/feed/post', { text: `post ${i} of ${owner}` })
			if (made.status !== 200) throw new Error(`POST /feed/post ${made.status}`)
			posts.push({ owner, id: made.body.data?.post._id })
		}

	const badge = people.map(() => -1)
	const activities = people.map(() => [] as string[])
	let lastFrame = Date.now()
	const sockets = people.map(
		(p, n) =>
			new LiveClient(n, p.token, ['me'], {
				onEvent: (c, e) => {
					lastFrame = Date.now()
					const f = JSON.parse(e.text) as {
						event: { type: string; data: { count: number; activity_id: string } }
					}
					if (f.event.type === 'badge') badge[c.n] = f.event.data.count
					if (f.event.type === 'activity.new') pick(activities, c.n).push(f.event.data.activity_id)
				},
			}),
	)
	await connectAll(sockets, (c) => wsBase(pick(apis, c.n % apis.length)), benchLog)

	const statuses = new Map<string, number>()
	let paused = false
	let running = true
	let inFlight = 0
	const act = async (n: number) => {
		const me = pick(people, n)
		const others = posts.filter((p) => p.owner !== n)
		const post = pick(others, Math.floor(Math.random() * others.length))
		const dice = Math.random()
		let done: { status: number }
		let what: string
		if (dice < 0.45) {
			what = 'like'
			done = await call(me.token, 'PUT', `/feed/post/${post.id}/like`, {})
		} else if (dice < 0.8) {
			what = 'comment'
			done = await call(me.token, 'POST', `/feed/post/${post.id}/comment`, { text: 'churn' })
		} else if (dice < 0.98 && pick(activities, n).length > 0) {
			what = 'read one'
			const ids = pick(activities, n)
			const id = ids.splice(Math.floor(Math.random() * ids.length), 1)[0]
			done = await call(me.token, 'POST', `/feed/user/activity/${id}/mark_read`, {})
		} else {
			what = 'read all'
			done = await call(me.token, 'POST', '/feed/user/activity/mark_read', {})
			pick(activities, n).length = 0
		}
		const key = `${what} ${done.status}`
		statuses.set(key, (statuses.get(key) ?? 0) + 1)
	}
	const churn = async (n: number) => {
		while (running) {
			if (paused) {
				await Bun.sleep(20)
				continue
			}
			inFlight++
			await act(n).finally(() => inFlight--)
		}
	}
	const workers = people.map((_, n) => churn(n))

	let samples = 0
	let compared = 0
	const mismatches: string[] = []
	const started = Date.now()
	benchLog(`churning for ${SECONDS} s, a sample every ${SAMPLE_SECONDS} s`)
	while (Date.now() - started < SECONDS * 1000) {
		await Bun.sleep(SAMPLE_SECONDS * 1000)
		paused = true
		await settle(() => inFlight === 0, 10_000)
		await settle(() => Date.now() - lastFrame >= 500, 10_000)
		samples++
		for (const [n, p] of people.entries()) {
			const unread = (await call(p.token, 'GET', '/feed/user/activity/unread_count')).body.data
				?.count
			compared++
			if (unread !== badge[n])
				mismatches.push(`sample ${samples} member ${n}: badge ${badge[n]}, unread_count ${unread}`)
		}
		paused = false
	}
	running = false
	await Promise.all(workers)
	const actions = [...statuses.values()].reduce((a, b) => a + b, 0)
	benchLog(`requests: ${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}`)
	if (mismatches.length > 0) benchLog(`mismatches: ${mismatches.slice(0, 10).join('; ')}`)
	row(
		`badge after ${fmt(SECONDS)} s of churn (likes, comments, reads of ${MEMBERS} members)`,
		'equals GET …/unread_count at every sample',
		`${fmt(actions)} requests (${fmt(actions / SECONDS)}/s); ${samples} samples × ${MEMBERS} members: ${compared - mismatches.length} of ${compared} equal`,
		mismatches.length === 0 && compared > 0,
	)
	for (const s of sockets) s.close()
} catch (error) {
	console.error(error)
	process.exitCode = 1
} finally {
	await stopAll(apis)
	await sql.end({ timeout: 5 })
	process.exit(process.exitCode ?? 0)
}
