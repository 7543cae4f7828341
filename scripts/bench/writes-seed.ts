// What bench:writes and writes-profile start from, through the public API: a fresh
// database and Redis db with one project, writers signed in with /sdk/initiate, and
// seed posts. Import it after the bench has set DATABASE_URL and REDIS_URL.
import { ensureDatabase, sql } from '../../src/lib/db'
import { migrate } from '../../src/lib/migrate'
import { redis } from '../../src/lib/redis'
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
	const users: { token: string; uniqueId: string }[] = []
	for (let i = 0; i < count; i++) {
		const uniqueId = `writer-${i}`
		const data = await call(
			'POST',
			'/sdk/initiate',
			{ 'x-api-key': apiKey },
			{ user_unique_id: uniqueId, user_name: `W${i}` },
		)
		users.push({ token: data.access_token, uniqueId })
	}
	return users
}

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
	let i = 0
	const timer = setInterval(() => {
		call('POST', '/feed/post', auth(i++), { text: `live ${i}` }).then(
			() => written++,
			() => failed++,
		)
	}, everyMs)
	return {
		stop() {
			clearInterval(timer)
			return { written, failed }
		},
	}
}
