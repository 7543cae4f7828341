// What bench:writes and writes-profile start from, through the public API: a fresh
// database and Redis db with one project, writers signed in with /sdk/initiate, their
// connections and the community's topics, and seed posts. Import it after the bench has
// set DATABASE_URL and REDIS_URL.
import { ensureDatabase, sql } from '../../src/lib/db'
import { migrate } from '../../src/lib/migrate'
import { redis } from '../../src/lib/redis'
import { changeRole } from '../../src/modules/auth/roles'
import { createProject } from '../../src/modules/projects/service'

export type Call = (
	method: string,
	path: string,
	headers: Record<string, string>,
	body?: unknown,
	// biome-ignore lint/suspicious/noExplicitAny: the bench reads whatever `data` a route answers
) => Promise<any>

/** A fresh database and Redis db (each run compares like with like) and the bench's project. */
export async function freshProject() {
	await ensureDatabase(process.env.DATABASE_URL as string)
	await sql.unsafe('drop schema public cascade; create schema public')
	await migrate()
	await redis.flushdb()
	return createProject({
		name: 'bench-writes',
		ownerCountryCode: '1',
		ownerMobile: `5${Date.now()}`.slice(0, 11),
	})
}

/** JSON calls to the server at `base()`; the `data` of a 200, else a throw. */
export function apiCaller(base: () => string): Call {
	return async (method, path, headers, body) => {
		const response = await fetch(base() + path, {
			method,
			headers: { 'content-type': 'application/json', ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
		})
		const json = (await response.json()) as { data: unknown }
		if (response.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`)
		return json.data
	}
}

/** `count` writers (customer ids writer-0 …), each signed in once. */
export async function signInWriters(call: Call, apiKey: string, count: number) {
	const users: { token: string; uniqueId: string; uuid: string }[] = []
	for (let i = 0; i < count; i++) {
		const uniqueId = `writer-${i}`
		const data = await call(
			'POST',
			'/sdk/initiate',
			{ 'x-api-key': apiKey },
			{ user_unique_id: uniqueId, user_name: `W${i}` },
		)
		users.push({ token: data.access_token, uniqueId, uuid: data.user.uuid })
	}
	return users
}

/**
 * The community most posts are written in (issue 40's row): `topicCount` topics made by
 * a CM, connections on, and each writer connected (two-way, auto-accepted) to the
 * `perSide` writers after it, so each has 2 × perSide connections. Returns the topic ids.
 */
export async function topicsAndConnections(
	base: () => string,
	apiKey: string,
	writers: { token: string; uuid: string }[],
	topicCount = 10,
	perSide = 8,
): Promise<string[]> {
	const call = apiCaller(base)
	const data = await call(
		'POST',
		'/sdk/initiate',
		{ 'x-api-key': apiKey },
		{ user_unique_id: 'bench-cm', user_name: 'Bench CM' },
	)
	await changeRole(data.user.sdk_client_info.community, data.user.id, 'cm', [])
	const cm = { authorization: `Bearer ${data.access_token}` }
	await call('PUT', '/community/settings', cm, {
		community_settings: [{ setting_type: 'user_connection', enabled: true }],
	})
	// Topic replies carry their payload at the top level, not under `data`.
	const reply = await fetch(`${base()}/feed/topic`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...cm },
		body: JSON.stringify({ names: Array.from({ length: topicCount }, (_, i) => `Topic ${i}`) }),
	})
	const body = (await reply.json()) as { topics?: { _id: string }[] }
	if (reply.status !== 200 || !body.topics) throw new Error(`topics: ${JSON.stringify(body)}`)
	const pairs: [number, number][] = []
	for (let i = 0; i < writers.length; i++)
		for (let d = 1; d <= perSide; d++) pairs.push([i, (i + d) % writers.length])
	let next = 0
	await Promise.all(
		Array.from({ length: 8 }, async () => {
			while (next < pairs.length) {
				const [from, to] = pairs[next++] as [number, number]
				await call(
					'POST',
					`/community/member/${writers[to]?.uuid}/connection`,
					{ authorization: `Bearer ${writers[from]?.token}` },
					{ connection_type: 'two_way', connection_request_auto_accepted: true },
				)
			}
		}),
	)
	return body.topics.map((topic) => topic._id)
}

/** The n-th post's topics: one of `topicIds`, and for every other post a second one. */
export const topicsOf = (topicIds: string[], n: number) =>
	n % 2 === 0
		? [topicIds[n % topicIds.length] as string]
		: [topicIds[n % topicIds.length] as string, topicIds[(n + 3) % topicIds.length] as string]

/** `count` posts by the writers in turn (`auth(i)`), `concurrency` at a time. */
export async function createPosts(
	call: Call,
	auth: (i: number) => Record<string, string>,
	count: number,
	concurrency = 8,
): Promise<void> {
	let next = 0
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) {
				const i = next++
				await call('POST', '/feed/post', auth(i), { text: `seed post ${i}` })
			}
		}),
	)
}

/**
 * Creates a post every `everyMs` by the writers in turn until stopped (one writer, as a
 * busy community); `stop` says how many were written and how many failed.
 */
export function writeEvery(
	call: Call,
	auth: (i: number) => Record<string, string>,
	everyMs: number,
) {
	let written = 0
	let failed = 0
	let firstError: string | undefined
	let i = 0
	const timer = setInterval(() => {
		call('POST', '/feed/post', auth(i++), { text: `live ${i}` }).then(
			() => written++,
			(error: Error) => {
				failed++
				firstError ??= error.message
			},
		)
	}, everyMs)
	return {
		stop() {
			clearInterval(timer)
			return { written, failed, firstError }
		},
	}
}
