// Search benchmark (issue 39, docs/search.md): seeds its own database (plaza_bench_search)
// with BENCH_SEARCH_POSTS posts (1,000,000) and BENCH_SEARCH_MEMBERS members (100,000) by
// COPY, starts the app and a bare server each in its own process, and measures with
// autocannon (BENCH_CONNECTIONS=64, BENCH_SECONDS=10):
//   GET /search/post for a common word (in ~20% of the posts) and a rare one (~0.01%),
//   GET /community/tag (a prefix) and /community/member/search (a typo), and the member
//   searches again with one connection (a search's own latency),
//   POST /feed/post end to end with the search column, then with it dropped,
// beside the bare server's constant route; then the search index's size per post, and
// posts/s of the post insert statement with and without the search column (two scratch
// tables, BENCH_WRITERS=8 concurrent writers of batches of 20, BENCH_INSERT_SECONDS=10).
// Run: npm run bench:search   (small: BENCH_SEARCH_POSTS=20000 BENCH_SEARCH_MEMBERS=5000)
export {}

process.env.DATABASE_URL =
	process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/plaza_bench_search'
process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15'
process.env.LOG_LEVEL = 'warn'
process.env.RATE_LIMIT_PER_MINUTE = '100000000'
process.env.RATE_LIMIT_IP_PER_MINUTE = '100000000'

const {
	benchLog: log,
	measure,
	measureWith,
	printHeader,
	printRow,
	rowOf,
	startBenchServer,
} = await import('./harness')
const { default: autocannon } = await import('autocannon')
type Row = import('./harness').Row
const { ensureDatabase, sql } = await import('../../src/lib/db')
const { migrate } = await import('../../src/lib/migrate')
const { redis } = await import('../../src/lib/redis')
const { signAccessToken } = await import('../../src/lib/tokens')
const { benchWords, seedSearch, seededSearch } = await import('./search-seed')

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
const size = {
	posts: Number(process.env.BENCH_SEARCH_POSTS ?? 1_000_000),
	members: Number(process.env.BENCH_SEARCH_MEMBERS ?? 100_000),
}
const writers = Number(process.env.BENCH_WRITERS ?? 8)
const insertSeconds = Number(process.env.BENCH_INSERT_SECONDS ?? 10)

// BENCH_SEARCH_REUSE=1: keep a database seeded by an earlier run of the same size (the
// write rows, which add posts and drop the search column, are then skipped so that it
// stays reusable); otherwise the database is made anew
const reuse = process.env.BENCH_SEARCH_REUSE === '1'
await ensureDatabase(process.env.DATABASE_URL)
const reused = reuse ? await seededSearch(size).catch(() => null) : null
if (!reused) {
	await sql.unsafe('drop schema public cascade; create schema public')
	log('database emptied')
}
await migrate()
await redis.flushdb()
if (reused) log('reusing the seeded database')
const bench = reused ?? (await seedSearch(size, log))
const token = await signAccessToken(
	{ sub: bench.viewer.uuid, uid: bench.viewer.id, cid: bench.communityId, role: 'member' },
	900,
)

// ---- index size per post (before the write rows drop the column) -------------------
const [sizes] = await sql<
	{ posts: number; index_bytes: number; column_bytes: number; table_bytes: number }[]
>`
	select count(*)::float8 as posts, pg_relation_size('posts_search')::float8 as index_bytes,
		sum(pg_column_size(search))::float8 as column_bytes, pg_table_size('posts')::float8 as table_bytes
	from posts`

// ---- reads: the app and the bare server, each in its own process -------------------
const bare = await startBenchServer('scripts/bench/search-bare.ts')
const server = await startBenchServer('scripts/bench/search-server.ts')
const rows: { row: Row; ceiling: Row }[] = []
const postRows: Row[] = []
try {
	const bareRow = await measure(
		{ port: bare.port, token, connections, seconds },
		'bare server (own process)',
		'/bench/bare',
	)
	// each request searches the next word of its list: no two in a row the same
	const words = await benchWords()
	log(`common words: ${words.common.join(', ')}; rare words: ${words.rare.join(', ')}`)
	const searching = (list: string[]) => {
		let next = 0
		return {
			setupRequest: (request: { headers: Record<string, string> }) => ({
				...request,
				headers: { ...request.headers, authorization: `Bearer ${token}` },
				path: `/search/post?search=${list[next++ % list.length]}&page=1&page_size=20`,
			}),
		}
	}
	for (const [kind, list] of [
		['common', words.common],
		['rare', words.rare],
	] as const)
		rows.push({
			row: await measureWith(
				{ port: server.port, connections, seconds },
				`search/post ${kind} (${list.length} words)`,
				`/search/post?search=${list[0]}`,
				searching(list),
			),
			ceiling: bareRow,
		})
	const on = (name: string, path: string) =>
		measure({ port: server.port, token, connections, seconds }, name, path)
	for (const [name, path] of [
		['community/tag prefix "mar"', '/community/tag?search_name=mar&page=1&page_size=10'],
		[
			'member/search typo "margeret"',
			'/community/member/search?search=margeret&page=1&page_size=10',
		],
	] as const)
		rows.push({ row: await on(name, path), ceiling: bareRow })
	// One searcher at a time: the latency of a search itself. At 64 connections a p99 is
	// 3.5–4× the mean wait in the queue (64 ÷ the rate), which no query shortens.
	const alone = (name: string, path: string) =>
		measure({ port: server.port, token, connections: 1, seconds }, name, path)
	for (const [name, path] of [
		['community/tag prefix "mar", 1 conn', '/community/tag?search_name=mar&page=1&page_size=10'],
		[
			'member/search typo "margeret", 1 conn',
			'/community/member/search?search=margeret&page=1&page_size=10',
		],
	] as const)
		rows.push({ row: await alone(name, path), ceiling: bareRow })
	rows.unshift({ row: bareRow, ceiling: bareRow })
	// POST /feed/post end to end, with the search column and its index, then without
	// them (dropping a column is instant; the bench database is made anew each run)
	if (!reuse) {
		const [sample] = await sql<{ text: string }[]>`select text from posts order by id desc limit 1`
		const body = JSON.stringify({ text: sample?.text ?? 'a post about the sunrise' })
		postRows.push(await createPosts('POST /feed/post, search column', body))
		await sql`alter table posts drop column search`
		postRows.push(await createPosts('POST /feed/post, no search column', body))
	}
} finally {
	bare.child.kill('SIGTERM')
	server.child.kill('SIGTERM')
	await Promise.all([bare.child.exited, server.child.exited])
}

async function createPosts(name: string, body: string): Promise<Row> {
	const url = `http://127.0.0.1:${server.port}/feed/post`
	const options = {
		url,
		method: 'POST' as const,
		connections,
		headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
		body,
	}
	await autocannon({ ...options, duration: 2 })
	return rowOf(name, await autocannon({ ...options, duration: seconds }))
}

// ---- posts/s with and without the search column -------------------------------------
// Two empty scratch tables shaped like posts (its indexes included), one with the
// search column. The statement is the shape of posts/repo.ts newPostsCte: one insert
// of a batch from unnest.
const rates = { plain: 0, search: 0 }
if (!reuse) await insertRates()

async function insertRates() {
	await sql`drop table if exists bench_posts_search, bench_posts_plain`
	// posts has no search column by now (the write rows dropped it): the plain table is its
	// shape, the other gets the column and its GIN index back as migrations/0100 makes them
	await sql`create table bench_posts_plain (like posts including defaults including indexes)`
	await sql`create table bench_posts_search (like posts including defaults including indexes)`
	await sql`alter table bench_posts_search add column search tsvector
	generated always as (post_search_vector(heading, text, topic_names)) stored`
	await sql`create index on bench_posts_search using gin (search)`
	const texts = (
		await sql<{ text: string; heading: string }[]>`
	select heading, text from posts order by id desc limit 2000`
	).map((r) => r)
	let sequence = 0
	async function insertRate(table: string): Promise<number> {
		const until = performance.now() + insertSeconds * 1000
		let written = 0
		await Promise.all(
			Array.from({ length: writers }, async () => {
				while (performance.now() < until) {
					const batch = Array.from({ length: 20 }, () => {
						const i = sequence++
						const source = texts[i % texts.length] as { text: string; heading: string }
						return { id: `f${i.toString(16).padStart(23, '0')}`, ...source }
					})
					await sql`
					insert into ${sql(table)} (id, community_id, user_id, heading, text, attachments, visibility, created_at, updated_at, topic_names)
					select id, ${bench.communityId}, ${bench.viewer.id}, heading, text, '[]'::jsonb, 'public', ${Date.now()}, ${Date.now()}, ''
					from unnest(${batch.map((b) => b.id)}::text[], ${batch.map((b) => b.heading)}::text[], ${batch.map((b) => b.text)}::text[])
						as p(id, heading, text)`
					written += batch.length
				}
			}),
		)
		return written / insertSeconds
	}
	for (let round = 0; round < 2; round++) {
		rates.plain = Math.max(rates.plain, await insertRate('bench_posts_plain'))
		rates.search = Math.max(rates.search, await insertRate('bench_posts_search'))
		log(
			`insert round ${round + 1}: plain ${Math.round(rates.plain)} posts/s, search ${Math.round(rates.search)} posts/s (best so far)`,
		)
	}
	await sql`drop table bench_posts_search, bench_posts_plain`
}

// ---- the table ----------------------------------------------------------------------
console.log(
	`\nbench:search — ${sizes?.posts} posts, ${size.members} members, ${connections} connections, ${seconds} s per row`,
)
printHeader()
for (const { row, ceiling } of rows) printRow(row, ceiling)
const perPost = (bytes = 0) => (sizes?.posts ? (bytes / sizes.posts).toFixed(1) : 'n/a')
console.log(
	`\nsearch index (posts_search GIN): ${perPost(sizes?.index_bytes)} bytes per post; the search column: ${perPost(sizes?.column_bytes)} bytes per post; the posts table: ${perPost(sizes?.table_bytes)} bytes per post`,
)
if (!reuse) {
	for (const row of postRows) printRow(row, rows[0]?.ceiling)
	console.log(
		`POST /feed/post with the search column ÷ without: ${((postRows[0]?.rps ?? 0) / (postRows[1]?.rps || 1)).toFixed(2)}`,
	)
	console.log(
		`posts/s of the insert statement (${writers} writers, batches of 20): without the search column ${Math.round(rates.plain)}, with it ${Math.round(rates.search)}, ratio ${(rates.search / rates.plain).toFixed(2)}`,
	)
} else console.log('write rows skipped (BENCH_SEARCH_REUSE=1 keeps the seeded database as it is)')
await sql.end()
redis.disconnect()
