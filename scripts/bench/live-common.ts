// What the live bench rows share: the database, a community with members and rooms,
// api processes (live-api.ts: plaza's entry plus a GC on SIGUSR2), a process's RSS and
// CPU time from /proc, percentiles, and the row line every row prints.
import { ensureDatabase, sql } from '../../src/lib/db'
import { migrate } from '../../src/lib/migrate'
import { signAccessToken } from '../../src/lib/tokens'
import { type LiveScope, publishLive } from '../../src/live'
import { createProject } from '../../src/modules/projects/service'
import { type Plaza, spawnPlaza } from '../../test/support/process'
import { benchLog } from './harness'
import { type ClientHooks, LiveClient } from './live-client'

export { benchLog, sql }

export const envNumber = (name: string, fallback: number) => Number(process.env[name] ?? fallback)

/** The per-user limit is 10 connections per api process. */
export const PER_USER = 10

export interface Member {
	id: number
	token: string
}

/** Migrates the bench database and makes a community of its own for the row. */
export async function community(name: string) {
	await ensureDatabase(process.env.DATABASE_URL as string)
	await migrate()
	const project = await createProject({
		name: `bench-live-${name}`,
		ownerCountryCode: '1',
		ownerMobile: `5${Date.now()}${Math.floor(Math.random() * 100)}`.slice(0, 12),
	})
	const communityId = project.community_id as number
	/** `count` members inserted in one statement, each with an access token. */
	async function members(count: number, role: 'member' | 'cm' = 'member'): Promise<Member[]> {
		const stamp = `${Date.now()}-${Math.random()}`
		const rows = await sql`
			insert into users (uuid, community_id, user_unique_id, name, role)
			select gen_random_uuid(), ${communityId}, ${stamp} || '-' || n, 'Reader ' || n, ${role}
			from generate_series(1, ${count}::int) n
			returning id::float8 as id, uuid::text as uuid`
		return Promise.all(
			rows.map(async (r) => ({
				id: r.id as number,
				token: await signAccessToken({ sub: r.uuid, uid: r.id, cid: communityId, role }),
			})),
		)
	}
	return { communityId, members }
}

/** `count` chat rooms made by `cm` through POST /chatroom on `base`, 20 at a time. */
export async function makeRooms(base: string, cm: Member, count: number): Promise<string[]> {
	const ids: string[] = []
	for (let i = 0; i < count; i += 20) {
		const made = await Promise.all(
			Array.from({ length: Math.min(20, count - i) }, async (_, k) => {
				const reply = await fetch(`${base}/chatroom`, {
					method: 'POST',
					headers: { authorization: `Bearer ${cm.token}`, 'content-type': 'application/json' },
					body: JSON.stringify({ title: `Room ${i + k}` }),
				})
				if (reply.status !== 200) throw new Error(`POST /chatroom ${reply.status}`)
				return ((await reply.json()) as { data: { chatroom: { id: string } } }).data.chatroom.id
			}),
		)
		ids.push(...made)
	}
	return ids
}

/** `count` api processes (ROLE=api) on the bench database and Redis. */
export async function startApis(count: number, env: Record<string, string> = {}) {
	benchLog(`starting ${count} api process${count > 1 ? 'es' : ''}`)
	return Promise.all(
		Array.from({ length: count }, () =>
			spawnPlaza('api', env, { entry: 'scripts/bench/live-api.ts', startTimeoutMs: 60_000 }),
		),
	)
}

export const httpBase = (p: Plaza) => `http://127.0.0.1:${p.port}`
export const wsBase = (p: Plaza) => `ws://127.0.0.1:${p.port}`

export async function stopAll(apis: Plaza[]) {
	await Promise.all(apis.filter((p) => p.alive()).map((p) => p.stop('SIGKILL')))
}

/** VmRSS of a process, bytes. */
export async function rss(pid: number): Promise<number> {
	const status = await Bun.file(`/proc/${pid}/status`).text()
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
}

/** User + system CPU seconds a process has used (clock ticks of 1/100 s). */
export async function cpuSeconds(pid: number): Promise<number> {
	const stat = await Bun.file(`/proc/${pid}/stat`).text()
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
	return (Number(fields[11]) + Number(fields[12])) / 100
}

/** The process's open-files hard limit (what a process may raise its own limit to). */
export async function fileLimit(): Promise<number> {
	const limits = await Bun.file('/proc/self/limits').text()
	return Number(/Max open files\s+\d+\s+(\d+)/.exec(limits)?.[1] ?? 1024)
}

/** The `p` quantile of ascending `sorted` (undefined when empty). */
export const pct = (sorted: ArrayLike<number>, p: number) =>
	sorted.length === 0
		? Number.NaN
		: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

/** One line of the result table: `| case | target | measured | met |` (the parent collects it). */
export function row(name: string, target: string, measured: string, met: boolean) {
	console.log(`| ${name} | ${target} | ${measured} | ${met ? 'yes' : '**no**'} |`)
}

/**
 * Publishes `rate` events/s for `seconds` through publishLive (what a writer runs after
 * its commit), event k to `scopeOf(k)` with data {n: k}; `onId` gets each stream id.
 * Returns how many were sent and over how long (below `rate` when Redis lagged).
 */
export async function publishAtRate(
	rate: number,
	seconds: number,
	scopeOf: (k: number) => LiveScope,
	onId?: (k: number, id: string | null) => void,
) {
	const started = performance.now()
	let sent = 0
	while (performance.now() - started < seconds * 1000) {
		const due = Math.floor(((performance.now() - started) / 1000) * rate)
		const batch: Promise<unknown>[] = []
		for (; sent < due; sent++) {
			const k = sent
			const publishing = publishLive(scopeOf(k), { type: 'bench', data: { n: k } })
			batch.push(onId ? publishing.then((id) => onId(k, id)) : publishing)
		}
		await Promise.all(batch)
		await Bun.sleep(1)
	}
	return { sent, seconds: (performance.now() - started) / 1000 }
}

/** Polls `done` every 20 ms until true or `timeoutMs`; whether it came true. */
export async function settle(done: () => boolean, timeoutMs: number): Promise<boolean> {
	const deadline = Date.now() + timeoutMs
	while (!done()) {
		if (Date.now() > deadline) return false
		await Bun.sleep(20)
	}
	return true
}

/** `list[i]`, for indexes the caller knows are in range. */
export const pick = <T>(list: readonly T[], i: number): T => list[i] as T

/**
 * `count` clients on rooms: client n follows room n % layout, PER_USER clients to a
 * reader (whose token it holds), all with the same hooks.
 */
export function roomClients(
	count: number,
	readers: readonly Member[],
	rooms: readonly string[],
	layout: number,
	hooks: ClientHooks,
): LiveClient[] {
	return Array.from(
		{ length: count },
		(_, n) =>
			new LiveClient(
				n,
				pick(readers, Math.floor(n / PER_USER)).token,
				[`chatroom:${pick(rooms, n % layout)}`],
				hooks,
			),
	)
}
