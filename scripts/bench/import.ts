// Bulk import benchmark (issue 12): generates a community in the import format —
// at full size 1,000,000 records: 50,000 users, 200 topics, 300,000 posts, 450,000
// likes, 200,000 comments and replies — imports it with scripts/import.ts in a child
// process (records/s, peak RSS), imports it again (must add nothing), and measures a
// bare COPY of the same rows into an unindexed table: the physical limit here; and,
// the floor with the live indexes kept, the rows the import wrote COPYed into copies of
// the real tables with their indexes and constraints.
//   bun run scripts/bench/import.ts [--records 1000000]
// Database plaza_bench_import (BENCH_DATABASE_URL), Redis db 12 (BENCH_REDIS_URL).

import { once } from 'node:events'
import { createReadStream, createWriteStream, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import postgres from 'postgres'

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_import'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12'
process.env.LOG_LEVEL = 'warn'

const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { createProject } = await import('../../src/modules/projects/service')

const { values } = parseArgs({ options: { records: { type: 'string', default: '1000000' } } })
const records = Number(values.records)
const scale = records / 1_000_000
const size = {
	users: Math.max(10, Math.round(50_000 * scale)),
	topics: Math.max(4, Math.round(200 * scale)),
	posts: Math.round(300_000 * scale),
	likes: Math.round(450_000 * scale),
	comments: Math.round(200_000 * scale),
}
const log = (msg: string) => console.error(`[bench] ${msg}`)
const dir = '/tmp/plaza-bench-import'
mkdirSync(dir, { recursive: true })

/** Writes the community (deterministic) in export order, streaming: memory stays flat. */
async function generate(path: string): Promise<number> {
	const out = createWriteStream(path)
	let lines = 0
	const write = async (record: unknown) => {
		lines++
		if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain')
	}
	let seed = 42
	const pick = (n: number) => {
		seed = (seed * 1664525 + 1013904223) >>> 0
		return seed % n
	}
	const base = Date.UTC(2019, 0, 1)
	for (let i = 0; i < size.users; i++)
		await write({ type: 'user', user_unique_id: `u${i}`, name: `User ${i}`, created_at: base })
	const roots = Math.max(2, Math.round(size.topics / 10))
	for (let i = 0; i < size.topics; i++)
		await write({
			type: 'topic',
			external_id: `t${i}`,
			name: `Topic ${i}`,
			...(i >= roots ? { parent_external_id: `t${i % roots}` } : {}),
		})
	for (let i = 0; i < size.posts; i++)
		await write({
			type: 'post',
			external_id: `p${i}`,
			user_unique_id: `u${pick(size.users)}`,
			text: `Post number ${i}: a migrated post with some ordinary text in it.`,
			created_at: base + i * 60_000,
			topic_external_ids: [`t${pick(size.topics)}`],
		})
	for (let i = 0; i < size.comments; i++) {
		const reply = i % 4 === 3
		const post = reply ? pick(Math.ceil(i / 4)) : i % size.posts
		await write({
			type: 'comment',
			external_id: `c${i}`,
			user_unique_id: `u${pick(size.users)}`,
			post_external_id: `p${reply ? (post * 4) % size.posts : post}`,
			...(reply ? { parent_external_id: `c${post * 4}` } : {}),
			text: `Comment ${i}`,
			created_at: base + i * 1000,
		})
	}
	// Likes: user k likes posts k, k+users, ... so no pair repeats.
	for (let i = 0; i < size.likes; i++)
		await write({
			type: 'like',
			user_unique_id: `u${i % size.users}`,
			post_external_id: `p${(Math.floor(i / size.users) * 7919 + i) % size.posts}`,
		})
	out.end()
	await once(out, 'finish')
	return lines
}

async function importOnce(communityId: number, path: string) {
	const started = performance.now()
	const child = Bun.spawn(
		[process.execPath, 'scripts/import.ts', '--community', String(communityId), '--timings', path],
		{
			env: process.env,
			stdout: 'pipe',
			stderr: 'pipe',
		},
	)
	const [out, err] = await Promise.all([
		new Response(child.stdout).text(),
		new Response(child.stderr).text(),
	])
	const summary = JSON.parse(out)
	await child.exited
	// Each part's wall time (scripts/import.ts --timings), where the time goes.
	const timings: Record<string, number> = {}
	for (const line of err.split('\n'))
		if (line.startsWith('{"timing"')) {
			const t = JSON.parse(line) as { timing: string; ms: number }
			timings[t.timing] = t.ms
		}
	const seconds = (performance.now() - started) / 1000
	const maxRss = child.resourceUsage()?.maxRSS ?? 0
	return { summary, seconds, rssMb: Math.round(maxRss / 1024 / 1024), timings }
}

/** COPY of the same records, pre-rendered, into one unindexed table: what the disk and server allow. */
async function bareCopy(path: string): Promise<number> {
	const rendered = join(dir, 'bare.tsv')
	const out = createWriteStream(rendered)
	const field = (v: unknown) =>
		v === undefined || v === null
			? '\\N'
			: String(typeof v === 'object' ? JSON.stringify(v) : v).replace(/[\\\t\n\r]/g, ' ')
	for await (const line of createInterface({ input: createReadStream(path) })) {
		const r = JSON.parse(line)
		const id = r.external_id ?? r.user_unique_id
		const ref = r.post_external_id ?? r.parent_external_id ?? r.comment_external_id
		const row = [r.type, id, r.user_unique_id, ref, r.name ?? r.text, r.created_at]
			.map(field)
			.join('\t')
		if (!out.write(`${row}\n`)) await once(out, 'drain')
	}
	out.end()
	await once(out, 'finish')
	await sql`drop table if exists bench_bare_copy`
	await sql`create table bench_bare_copy (type text, id text, user_id text, ref text, body text, created_at bigint)`
	const started = performance.now()
	const writable = await sql`copy bench_bare_copy from stdin`.writable()
	const input = createReadStream(rendered)
	input.pipe(writable)
	await once(writable, 'finish')
	const seconds = (performance.now() - started) / 1000
	await sql`drop table bench_bare_copy`
	return seconds
}

/** The community's rows in each table an import fills, as `select` statements. */
const filledTables = (c: number): [string, string][] => [
	['users', `select * from users where community_id = ${c}`],
	['topics', `select * from topics where community_id = ${c}`],
	['posts', `select * from posts where community_id = ${c}`],
	[
		'post_topics',
		`select x.* from post_topics x join posts p on p.id = x.post_id where p.community_id = ${c}`,
	],
	['comments', `select * from comments where community_id = ${c}`],
	[
		'post_likes',
		`select x.* from post_likes x join posts p on p.id = x.post_id where p.community_id = ${c}`,
	],
	[
		'comment_likes',
		`select x.* from comment_likes x join comments k on k.id = x.comment_id where k.community_id = ${c}`,
	],
	['connections', `select * from connections where community_id = ${c}`],
]

/**
 * The floor with the live indexes kept: the rows the first run wrote, copied out (not
 * timed), then COPYed back, table by table on one connection as the import writes,
 * into copies of the real tables in a scratch schema (`like … including all`: the same
 * columns, defaults, checks, unique and other indexes, WAL-logged like them) — no
 * resolution, no checks of the records. No foreign keys or triggers: `like` copies
 * neither, and the import turns both off for its steps (docs/migration.md).
 */
async function indexedCopy(communityId: number): Promise<{ seconds: number; rows: number }> {
	await sql`drop schema if exists bench_floor cascade`
	await sql`create schema bench_floor`
	const files: [string, string][] = []
	let rows = 0
	for (const [table, select] of filledTables(communityId)) {
		await sql.unsafe(`create table bench_floor.${table} (like public.${table} including all)`)
		const path = join(dir, `floor-${table}.tsv`)
		// Each copied out on a client of its own: a query after a COPY TO on the same connection hung.
		const reader = postgres(process.env.DATABASE_URL as string, { max: 1, onnotice: () => {} })
		const readable = await reader.unsafe(`copy (${select}) to stdout`).readable()
		const out = createWriteStream(path)
		readable.pipe(out)
		await once(out, 'finish')
		await reader.end()
		rows += readFileSync(path).reduce((n, byte) => (byte === 10 ? n + 1 : n), 0)
		files.push([table, path])
	}
	const started = performance.now()
	for (const [table, path] of files) {
		const writable = await sql.unsafe(`copy bench_floor.${table} from stdin`).writable()
		createReadStream(path).pipe(writable)
		await once(writable, 'finish')
	}
	const seconds = (performance.now() - started) / 1000
	await sql`drop schema bench_floor cascade`
	return { seconds, rows }
}

await ensureDatabase(process.env.DATABASE_URL)
await migrate()
const file = join(dir, `community-${records}.ndjson`)
log(`generating ${records} records: ${JSON.stringify(size)}`)
const lines = await generate(file)
const project = await createProject({
	name: 'import-bench',
	ownerCountryCode: '1',
	ownerMobile: `5${String(Date.now()).slice(-9)}`,
})
log(`importing into community ${project.community_id}`)
const first = await importOnce(project.community_id, file)
log(`first run: ${JSON.stringify(first.summary)}`)
const second = await importOnce(project.community_id, file)
const added = Object.values(second.summary.imported as Record<string, number>).reduce(
	(a, b) => a + b,
	0,
)
log('bare COPY of the same rows')
const copySeconds = await bareCopy(file)
log('COPY of the rows the import wrote into copies of the live tables, indexes kept')
const floor = await indexedCopy(project.community_id)

const rate = (s: number) => Math.round(lines / s)
const rows = [
	['bare COPY into an unindexed table', copySeconds, rate(copySeconds), '', 'the limit'],
	[
		'COPY into copies of the live tables, indexes kept',
		floor.seconds,
		rate(floor.seconds),
		'',
		`the floor with the live indexes (${floor.rows.toLocaleString('en')} table rows)`,
	],
	[
		'import (first run)',
		first.seconds,
		rate(first.seconds),
		first.rssMb,
		`${Math.round((100 * rate(first.seconds)) / rate(copySeconds))}% of bare COPY (target >= 25%, >= 50,000/s), ${Math.round((100 * rate(first.seconds)) / rate(floor.seconds))}% of the indexed floor`,
	],
	[
		'import again (same file)',
		second.seconds,
		rate(second.seconds),
		second.rssMb,
		`${(first.seconds / second.seconds).toFixed(1)}x faster than the first (target >= 5x), added ${added} (target 0)`,
	],
]
console.log(`\n${lines} records (${JSON.stringify(size)}), ${first.summary.rejects} rejects\n`)
console.log('| run | seconds | records/s | peak RSS MB | vs baseline |')
console.log('|---|---|---|---|---|')
for (const [name, s, r, rss, note] of rows)
	console.log(
		`| ${name} | ${(s as number).toFixed(1)} | ${(r as number).toLocaleString('en')} | ${rss} | ${note} |`,
	)
const parts = Object.keys({ ...first.timings, ...second.timings })
console.log('\n| part (ms) | first run | again |')
console.log('|---|---|---|')
for (const part of parts)
	console.log(`| ${part} | ${first.timings[part] ?? '-'} | ${second.timings[part] ?? '-'} |`)
await sql.end()
redis.disconnect()
