// Seeds bench:search fast with COPY: one community, its members (names from common first
// and last names, so prefixes match many) and its posts (texts of words drawn from a
// Zipf-distributed vocabulary, with one common and one rare marker word). The posts'
// GIN index is dropped for the load and built once after it.

import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { sql } from '../../src/lib/db'
import { createProject } from '../../src/modules/projects/service'

export const COMMON_WORD = 'sunrise'
export const RARE_WORD = 'zephyrine'
/** Shares of the posts holding each marker word. */
export const COMMON_SHARE = 0.2
export const RARE_SHARE = 0.0001

const FIRST =
	'Maria Mark Martin Margaret Marcus Anna Andrew Alice Ahmed Aisha Ben Bianca Carlos Chen Chloe Daniel Diana Elena Emma Ethan Fatima Felix George Grace Hana Hugo Ivan Isla Jack Julia Kenji Kira Leo Lina Lucas Maya Nina Noah Omar Olga Pablo Priya Quinn Rosa Ravi Sara Sven Tariq Tess Uma Victor Wei Yara Zoe'.split(
		' ',
	)
const LAST =
	'Smith Johnson Garcia Martinez Brown Jones Miller Davis Rodriguez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood Bennett'.split(
		' ',
	)

/** A small fast PRNG (mulberry32), seeded: every run seeds the same data. */
function prng(seed: number) {
	let a = seed
	return () => {
		a = (a + 0x6d2b79f5) | 0
		let t = Math.imul(a ^ (a >>> 15), 1 | a)
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296
	}
}

const SYLLABLES =
	'ka lo mi ne ru sa ti vo be da fe gi ho ju ku la ma no pe qui re so tu va we xi yo za'.split(' ')

/** A vocabulary of `n` made-up words and a Zipf sampler over it. */
function vocabulary(n: number, random: () => number) {
	const words: string[] = []
	for (let i = 0; words.length < n; i++) {
		const parts = 2 + (i % 3)
		let word = ''
		for (let p = 0; p < parts; p++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)]
		words.push(`${word}${i % 7 === 0 ? '' : i.toString(36)}`)
	}
	const cumulative: number[] = []
	let sum = 0
	for (let k = 0; k < n; k++) {
		sum += 1 / (k + 1)
		cumulative.push(sum)
	}
	return () => {
		const target = random() * sum
		let lo = 0
		let hi = n - 1
		while (lo < hi) {
			const mid = (lo + hi) >> 1
			if ((cumulative[mid] as number) < target) lo = mid + 1
			else hi = mid
		}
		return words[lo] as string
	}
}

async function copyRows(statement: string, rows: Iterable<string>): Promise<void> {
	const writable = await sql.unsafe(statement).writable()
	Readable.from(rows).pipe(writable)
	await once(writable, 'finish')
}

export interface SearchBench {
	communityId: number
	viewer: { id: number; uuid: string }
	authors: number
}

export async function seedSearch(
	size: { members: number; posts: number },
	log: (msg: string) => void,
): Promise<SearchBench> {
	const project = await createProject({
		name: 'search bench',
		ownerCountryCode: '1',
		ownerMobile: `9${Date.now()}`.slice(0, 11),
	})
	const c = project.community_id
	const random = prng(42)
	let started = performance.now()
	await copyRows(
		'copy users (uuid, community_id, user_unique_id, name) from stdin',
		(function* () {
			for (let i = 0; i < size.members; i++) {
				const name = `${FIRST[Math.floor(random() * FIRST.length)]} ${LAST[Math.floor(random() * LAST.length)]}`
				yield `${randomUUID()}\t${c}\tbench-${i}\t${name}\n`
			}
		})(),
	)
	log(`${size.members} members copied in ${Math.round(performance.now() - started)} ms`)
	const users = await sql<{ id: number; uuid: string }[]>`
		select id::float8 as id, uuid from users where community_id = ${c} and role = 'member' order by id limit 1001`
	const viewer = users[0] as { id: number; uuid: string }
	const authors = users.slice(1).map((u) => u.id)

	await sql`drop index if exists posts_search`
	started = performance.now()
	const word = vocabulary(5000, random)
	const now = Date.now()
	const span = 365 * 86_400_000
	await copyRows(
		'copy posts (id, community_id, user_id, heading, text, visibility, created_at, updated_at) from stdin',
		(function* () {
			for (let i = 0; i < size.posts; i++) {
				// oldest first, spread over a year
				const created = Math.floor(now - span + (span * i) / size.posts)
				const id = `${Math.floor(created / 1000)
					.toString(16)
					.padStart(8, '0')}b${i.toString(16).padStart(15, '0')}`
				const words: string[] = []
				const length = 8 + Math.floor(random() * 25)
				for (let w = 0; w < length; w++) words.push(word())
				if (random() < COMMON_SHARE) words.splice(Math.floor(random() * length), 0, COMMON_WORD)
				if (random() < RARE_SHARE) words.splice(Math.floor(random() * length), 0, RARE_WORD)
				const heading = random() < 0.3 ? `${word()} ${word()}` : ''
				const roll = random()
				const visibility = roll < 0.9 ? 'public' : roll < 0.98 ? 'connections' : 'private'
				const author = authors[Math.floor(random() * authors.length)]
				yield `${id}\t${c}\t${author}\t${heading}\t${words.join(' ')}\t${visibility}\t${created}\t${created}\n`
			}
		})(),
	)
	log(`${size.posts} posts copied in ${Math.round(performance.now() - started)} ms`)
	started = performance.now()
	await sql`create index posts_search on posts using gin (search)`
	await sql`analyze posts`
	await sql`analyze users`
	log(`posts_search built and tables analyzed in ${Math.round(performance.now() - started)} ms`)
	return { communityId: c, viewer, authors: authors.length }
}

/**
 * The bench seeded earlier in this database (BENCH_SEARCH_REUSE=1), when it holds exactly
 * `size` and its posts still have their search column; null otherwise.
 */
export async function seededSearch(size: {
	members: number
	posts: number
}): Promise<SearchBench | null> {
	const [column] = await sql`select 1 from information_schema.columns
		where table_name = 'posts' and column_name = 'search'`
	if (!column) return null
	const [counts] = await sql<{ c: number; members: number; posts: number }[]>`
		select (select community_id from users where user_unique_id = 'bench-0') as c,
			(select count(*)::int from users where user_unique_id like 'bench-%') as members,
			(select count(*)::int from posts) as posts`
	if (!counts?.c || counts.members !== size.members || counts.posts !== size.posts) return null
	const users = await sql<{ id: number; uuid: string }[]>`
		select id::float8 as id, uuid from users where community_id = ${counts.c} and role = 'member' order by id limit 1001`
	return {
		communityId: counts.c,
		viewer: users[0] as { id: number; uuid: string },
		authors: users.length - 1,
	}
}

/**
 * The words the bench searches, drawn from the seeded posts: `common`, the marker and
 * the vocabulary's lexemes in 5–50% of the posts (ANALYZE's statistics); `rare`, the
 * marker and the vocabulary's rarest words in a 2% sample (the Zipf tail: a few hundred
 * posts each of 1,000,000).
 */
export async function benchWords(count = 5): Promise<{ common: string[]; rare: string[] }> {
	const common = await sql<{ word: string }[]>`
		select x.word from pg_stats s,
			unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as x(word, share)
		where s.tablename = 'posts' and s.attname = 'search' and x.word <> ${COMMON_WORD}
			and x.share between 0.05 and 0.5
		order by x.share desc limit ${count - 1}`
	const rare = await sql<{ word: string }[]>`
		select word from ts_stat('select search from posts tablesample system (2) repeatable (7)')
		where length(word) >= 5 and word <> ${RARE_WORD}
		order by ndoc, word limit ${count - 1}`
	return {
		common: [COMMON_WORD, ...common.map((r) => r.word)],
		rare: [RARE_WORD, ...rare.map((r) => r.word)],
	}
}
