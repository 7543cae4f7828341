// The bulk import (scripts/import.ts and its engine): exact counts and counters, feeds
// rebuilt, a second run adds nothing, a run killed half-way and restarted ends as a
// clean run, bad lines become rejects, --dry-run writes nothing, no events.
import { beforeAll, describe, expect, test } from 'bun:test'
import { createReadStream, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runImport } from '../../src/import/run'
import { transaction } from '../../src/lib/db'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { importFromStream } from '../../src/modules/migration/service'
import { unlinkTopics } from '../../src/modules/posts/repo'
import { flushTopicCounts } from '../../src/modules/topics/repo'
import { newCommunity, newUser, type TestCommunity } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { generateCommunity, writeNdjson } from '../support/ndjson'
import { root } from '../support/process'

const dir = mkdtempSync(join(tmpdir(), 'plaza-import-'))
const size = { users: 60, posts: 300, comments: 400, likes: 900 }
const generated = generateCommunity(size)
const file = writeNdjson(join(dir, 'community.ndjson'), generated.lines)

/** As the CLI imports a file; `readOnce` as it imports stdin (no second read: lines kept in the stage). */
function importFile(communityId: number, path: string, dryRun = false, readOnce = false) {
	return importFromStream({
		communityId,
		input: createReadStream(path),
		reopen: readOnce ? undefined : () => createReadStream(path),
		totalBytes: null,
		rejectsPath: path.replace(/\.ndjson$/, '.rejects.ndjson'),
		dryRun,
		tty: false,
	})
}

/** Everything an import decides, keyed by the customer's ids (comparable across communities). */
export async function snapshot(communityId: number) {
	const posts = await sql`
		select p.external_id, p.text, p.created_at::float8, p.likes_count, p.comments_count,
			(select array_agg(t.external_id order by t.external_id) from post_topics pt
				join topics t on t.community_id = pt.community_id and t.id = pt.topic_id
				where pt.community_id = p.community_id and pt.post_id = p.id) as topics
		from posts p where p.community_id = ${communityId} order by p.external_id`
	// The stored counts, once the deltas of posts deleted through the API are folded in.
	await transaction((tx) => flushTopicCounts(tx))
	const topics = await sql`
		select external_id, name, level, post_count from topics where community_id = ${communityId} order by external_id`
	const comments = await sql`
		select k.external_id, k.level, k.likes_count, k.comments_count, par.external_id as parent
		from comments k left join comments par on par.community_id = k.community_id and par.id = k.parent_id
		where k.community_id = ${communityId} order by k.external_id`
	const [totals] = await sql`
		select (select count(*)::int from users where community_id = ${communityId}) as users,
			(select count(*)::int from post_likes where community_id = ${communityId}) as likes,
			(select count(*)::int from connections where community_id = ${communityId}) as connections,
			(select count(*)::int from users u where u.community_id = ${communityId} and u.ever_followed
				and exists (select 1 from connections c
					where c.community_id = u.community_id and c.connection_id = u.id)) as followed,
			(select count(*)::int from users u where u.community_id = ${communityId}
				and exists (select 1 from connections c
					where c.community_id = u.community_id and c.connection_id = u.id)) as with_followers,
			(select count(*)::int from events where community_id = ${communityId}) as events`
	return { posts, topics, comments, totals }
}

let clean: Awaited<ReturnType<typeof snapshot>>
let cleanTest: TestCommunity
let cleanCommunity: number

beforeAll(async () => {
	cleanTest = await newCommunity('import-clean')
	cleanCommunity = cleanTest.communityId
	const summary = await importFile(cleanCommunity, file)
	expect(summary.imported).toEqual(generated.counts as never)
	clean = await snapshot(cleanCommunity)
})

describe('import of a generated community', () => {
	test('counts, counters and topic post counts are exact; no events', async () => {
		expect(clean.posts).toHaveLength(size.posts)
		for (const post of clean.posts) {
			expect(post.likes_count).toBe(generated.likesOf.get(post.external_id) ?? 0)
			expect(post.comments_count).toBe(generated.commentsOf.get(post.external_id) ?? 0)
			expect(post.topics).toHaveLength(1)
		}
		expect(clean.topics.map((t) => [t.external_id, t.level, t.post_count])).toEqual([
			['xt0', 0, 100],
			['xt1', 0, 100],
			['xt2', 1, 100],
		])
		const replies = clean.comments.filter((c) => c.parent !== null)
		expect(replies.length).toBeGreaterThan(0)
		for (const reply of replies) expect(reply.level).toBe(2)
		const parents = clean.comments.filter((c) => c.comments_count > 0)
		expect(parents.reduce((n, c) => n + c.comments_count, 0)).toBe(replies.length)
		expect(clean.comments.find((c) => c.external_id === 'xc0')?.likes_count).toBe(1)
		// users: the imported ones and the community's owner
		// Every user an imported connection follows is marked followed (their posts fan out).
		expect(clean.totals).toEqual({
			users: size.users + 1,
			likes: size.likes,
			connections: 2,
			followed: clean.totals.with_followers,
			with_followers: clean.totals.with_followers,
			events: 0,
		})
		expect(clean.totals.with_followers).toBeGreaterThan(0)
	})

	test('the same file again adds nothing and matches every record', async () => {
		const again = await importFile(cleanCommunity, file)
		expect(Object.values(again.imported).every((n) => n === 0)).toBe(true)
		expect(again.matched).toEqual(generated.counts as never)
		expect(await snapshot(cleanCommunity)).toEqual(clean)
	})

	test('a re-run puts back what was deleted since, and only that, with exact counters', async () => {
		const target = (await newCommunity('import-restore')).communityId
		await importFile(target, file)
		// A post with likes and a topic but no comments, a reply without replies or likes, a
		// like of another post: each deleted straight from the tables (counters left stale).
		const [post] = await sql`
			select id, likes_count from posts where community_id = ${target}
				and likes_count > 0 and comments_count = 0 order by external_id limit 1`
		await sql`delete from post_likes where post_id = ${post?.id}`
		// Its links go as the app unlinks them, with their topics' count deltas.
		const links = await sql`select topic_id from post_topics where post_id = ${post?.id}`
		await unlinkTopics(
			sql,
			target,
			post?.id,
			links.map((l) => l.topic_id),
		)
		await sql`delete from posts where id = ${post?.id}`
		const [reply] = await sql`
			select id from comments where community_id = ${target} and parent_id is not null
				and comments_count = 0 and likes_count = 0 order by external_id limit 1`
		await sql`delete from comments where id = ${reply?.id}`
		const [like] = await sql`
			select l.post_id, l.user_id from post_likes l
			join posts p on p.community_id = l.community_id and p.id = l.post_id
			where p.community_id = ${target} order by p.external_id limit 1`
		await sql`delete from post_likes where post_id = ${like?.post_id} and user_id = ${like?.user_id}`
		expect(await snapshot(target)).not.toEqual(clean)

		const again = await importFile(target, file)
		expect(again.imported).toEqual({
			user: 0,
			topic: 0,
			post: 1,
			comment: 1,
			like: (post?.likes_count as number) + 1,
			connection: 0,
		})
		expect(await snapshot(target)).toEqual(clean)
	})

	test('--dry-run reports what a run would do and writes nothing', async () => {
		const target = (await newCommunity('import-dry')).communityId
		const summary = await importFile(target, file, true)
		expect(summary.imported).toEqual(generated.counts as never)
		const [{ n }] = await sql`select count(*)::int as n from posts where community_id = ${target}`
		expect(n).toBe(0)
	})

	test('a run killed with SIGKILL half-way and started again ends as a clean run', async () => {
		const target = (await newCommunity('import-killed')).communityId
		const child = Bun.spawn(
			[process.execPath, 'scripts/import.ts', '--community', String(target), file],
			{ cwd: root, env: process.env, stdout: 'pipe', stderr: 'pipe' },
		)
		// Killed once a step has committed and before the run finished.
		for (let i = 0; i < 2000; i++) {
			const [{ n }] = await sql`select count(*)::int as n from users where community_id = ${target}`
			if (n > 1) break
			await Bun.sleep(5)
		}
		child.kill('SIGKILL')
		await child.exited
		const [{ n: posts }] =
			await sql`select count(*)::int as n from posts where community_id = ${target}`
		expect(posts).toBeLessThanOrEqual(size.posts)
		const rerun = await importFile(target, file)
		expect(rerun.rejects).toBe(0)
		expect(await snapshot(target)).toEqual(clean)
	})

	test('the triggers an import turns off (session_replication_role) are the ones it replaces', async () => {
		// The content steps run with per-row triggers off and do the work of each trigger
		// listed here themselves; a new trigger on these tables must be handled there first.
		const triggers = await sql`
			select c.relname as table, t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
			where not t.tgisinternal and c.relname in ('users', 'topics', 'posts', 'post_topics', 'comments',
				'post_likes', 'comment_likes', 'connections', 'communities')
			order by 1, 2`
		// None since 0195: the statements set users.ever_followed (importConnections) and
		// write the topics' count deltas (importPosts) themselves.
		expect(triggers.map((t) => `${t.table}.${t.name}`)).toEqual([])
	})

	test('a re-run that adds nothing leaves the feeds alone; one that adds a post rebuilds them', async () => {
		const target = (await newCommunity('import-refresh')).communityId
		const small = generateCommunity({ users: 5, posts: 12, comments: 6, likes: 10 }, 3, 'r')
		const smallFile = writeNdjson(join(dir, 'small.ndjson'), small.lines)
		await importFile(target, smallFile)
		const feed = keys.universalFeed(target)
		expect(await redis.zcard(feed)).toBe(12)
		// A feed that drifted from Postgres (as if a placement were lost): only a rebuild restores it.
		const [dropped] = await redis.zrange(feed, 0, 0)
		await redis.zrem(feed, dropped as string)
		const built = await redis.get(keys.feedBuilt(target))

		const again = await importFile(target, smallFile)
		expect(Object.values(again.imported).every((n) => n === 0)).toBe(true)
		expect(await redis.zcard(feed)).toBe(11)
		expect(await redis.get(keys.feedBuilt(target))).toBe(built)

		// Positive control: the same file plus one new post is rebuilt, the lost placement with it.
		const more = writeNdjson(join(dir, 'small-more.ndjson'), [
			...small.lines,
			JSON.stringify({
				type: 'post',
				external_id: 'r-new',
				user_unique_id: 'ru0',
				text: 'one more',
				created_at: Date.UTC(2021, 0, 1),
			}),
		])
		const third = await importFile(target, more)
		expect(third.imported.post).toBe(1)
		expect(await redis.zcard(feed)).toBe(13)
		expect(await redis.zscore(feed, dropped as string)).not.toBeNull()
	})

	test('feeds are rebuilt: the universal feed lists the newest imported posts first', async () => {
		const reader = await newUser(cleanTest)
		const feed = await api('GET', '/feed/universal?page_size=3', { token: reader.token })
		expect(feed.status).toBe(200)
		expect(feed.body.data.posts.map((p: { text: string }) => p.text)).toEqual([
			`post ${size.posts - 1}\twith a tab`,
			`post ${size.posts - 2}\twith a tab`,
			`post ${size.posts - 3}\twith a tab`,
		])
	})
})

/** A reject's `record`: the line as JSON when it parses, else the line itself. */
function recordOf(line: string | undefined): unknown {
	try {
		return JSON.parse(line as string)
	} catch {
		return line
	}
}

describe('bad input', () => {
	test('each bad line is a reject with its line and reason; the rest imports', async () => {
		const target = (await newCommunity('import-bad')).communityId
		const lines = [
			'{"type":"user","user_unique_id":"a","name":"A"}',
			'not json',
			'{"type":"alien"}',
			'{"type":"post","external_id":"p1","user_unique_id":"a","text":"ok","created_at":1600000000000}',
			'{"type":"post","external_id":"p2","user_unique_id":"a"}',
			'{"type":"post","external_id":"p3","user_unique_id":"ghost","text":"x","created_at":1600000000000}',
			'{"type":"post","external_id":"p4","user_unique_id":"a","text":"x","created_at":99999999999999}',
			'{"type":"post","external_id":"p1","user_unique_id":"a","text":"changed","created_at":1600000000000}',
			'{"type":"post","external_id":"p1","user_unique_id":"a","text":"ok","created_at":1600000000000}',
			'{"type":"like","user_unique_id":"a","post_external_id":"nowhere"}',
			'{"type":"comment","external_id":"c1","user_unique_id":"a","post_external_id":"p1","parent_external_id":"missing","text":"x","created_at":1600000000001}',
			'{"type":"post","external_id":"p5","user_unique_id":"a","text":"nul \\u0000","created_at":1600000000000}',
		]
		const path = writeNdjson(join(dir, 'bad.ndjson'), lines)
		const summary = await importFile(target, path)
		expect(summary.imported).toMatchObject({ user: 1, post: 1, like: 0, comment: 0 })
		expect(summary.matched.post).toBe(1)
		const rejects = readFileSync(join(dir, 'bad.rejects.ndjson'), 'utf8')
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l))
			.sort((a, b) => a.line - b.line)
		expect(rejects.map((r) => [r.line, r.reason])).toEqual([
			[2, 'malformed JSON'],
			[3, 'unknown type "alien"'],
			[5, expect.stringContaining('post: ')],
			[6, 'unknown user_unique_id'],
			[7, 'created_at is in the future'],
			[8, 'duplicate id with different content (first at line 4)'],
			[10, 'unknown post_external_id'],
			[11, 'unknown parent_external_id'],
			[12, 'NUL character or lone surrogate in a string'],
		])
		expect(rejects[0].record).toBe('not json')
		expect(rejects[1].record).toEqual({ type: 'alien' })
		// Lines refused by the set-based checks (SQL), read back from the file by number.
		for (const reject of rejects) expect(reject.record).toEqual(recordOf(lines[reject.line - 1]))
		expect(summary.rejects).toBe(9)

		// Read once (stdin): the stage keeps each line, and the rejects are the same.
		const once = (await newCommunity('import-bad-once')).communityId
		const summaryOnce = await importFile(once, path, false, true)
		expect(summaryOnce).toMatchObject({ imported: summary.imported, rejects: 9 })
		const rejectsOnce = readFileSync(join(dir, 'bad.rejects.ndjson'), 'utf8')
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l))
			.sort((a, b) => a.line - b.line)
		expect(rejectsOnce).toEqual(rejects)
	})

	test('thousands of lines refused in SQL are all read back, in line order', async () => {
		const target = (await newCommunity('import-many-bad')).communityId
		const lines = ['{"type":"user","user_unique_id":"a","name":"A"}']
		for (let i = 0; i < 2500; i++)
			lines.push(`{"type":"like","user_unique_id":"a","post_external_id":"gone-${i}"}`)
		const path = writeNdjson(join(dir, 'many-bad.ndjson'), lines)
		const summary = await importFile(target, path)
		expect(summary).toMatchObject({ rejects: 2500, imported: { user: 1, like: 0 } })
		const rejects = readFileSync(join(dir, 'many-bad.rejects.ndjson'), 'utf8')
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l))
		expect(rejects.map((r) => r.line)).toEqual(lines.slice(1).map((_, i) => i + 2))
		for (const reject of rejects) {
			expect(reject.reason).toBe('unknown post_external_id')
			expect(reject.record).toEqual(JSON.parse(lines[reject.line - 1] as string))
		}
	})

	test('a file of only bad lines imports nothing and exits 1; a usage error exits 2', async () => {
		const target = (await newCommunity('import-all-bad')).communityId
		const path = writeNdjson(join(dir, 'all-bad.ndjson'), ['nope', '{"type":"user"}'])
		const run = Bun.spawn(
			[process.execPath, 'scripts/import.ts', '--community', String(target), path],
			{
				cwd: root,
				env: process.env,
				stdout: 'pipe',
				stderr: 'pipe',
			},
		)
		expect(await run.exited).toBe(1)
		const summary = JSON.parse(await new Response(run.stdout).text())
		expect(summary.rejects).toBe(2)
		expect(
			readFileSync(join(dir, 'all-bad.rejects.ndjson'), 'utf8').trim().split('\n'),
		).toHaveLength(2)
		const usage = Bun.spawn([process.execPath, 'scripts/import.ts', path], {
			cwd: root,
			env: process.env,
			stderr: 'pipe',
		})
		expect(await usage.exited).toBe(2)
	})
})

describe('counters written from the stage’s predictions', () => {
	/** Imports `records` (one line each); returns the summary and the parts the run timed. */
	async function importRecords(communityId: number, records: object[]) {
		const parts: string[] = []
		const lines = records.map((r) => JSON.stringify(r))
		const summary = await runImport({
			communityId,
			lines: (async function* () {
				yield lines
			})(),
			rejects: { add: () => {} },
			onTiming: (part) => parts.push(part),
		})
		return { summary, parts }
	}
	const at = Date.UTC(2021, 0, 1)
	const user = (id: string) => ({ type: 'user', user_unique_id: id, name: id })
	const post = (id: string) => ({
		type: 'post',
		external_id: id,
		user_unique_id: 'a',
		text: id,
		created_at: at,
	})
	const comment = (id: string, postId: string, parent?: string, userId = 'b') => ({
		type: 'comment',
		external_id: id,
		user_unique_id: userId,
		post_external_id: postId,
		...(parent ? { parent_external_id: parent } : {}),
		text: id,
		created_at: at + 1,
	})
	const like = (
		userId: string,
		target: { post?: string; comment?: string },
		createdAt = at + 2,
	) => ({
		type: 'like',
		user_unique_id: userId,
		...(target.post ? { post_external_id: target.post } : {}),
		...(target.comment ? { comment_external_id: target.comment } : {}),
		created_at: createdAt,
	})
	async function counters(communityId: number) {
		const rows = await sql`
			select external_id, likes_count, comments_count from posts where community_id = ${communityId}
			union all
			select external_id, likes_count, comments_count from comments where community_id = ${communityId}`
		return Object.fromEntries(rows.map((r) => [r.external_id, [r.likes_count, r.comments_count]]))
	}

	test('exact predictions skip the recount, duplicate lines included', async () => {
		const target = (await newCommunity('import-predicted')).communityId
		const records = [
			user('a'),
			user('b'),
			post('p1'),
			comment('c1', 'p1'),
			comment('c2', 'p1', 'c1'),
			like('b', { post: 'p1' }),
			like('b', { post: 'p1' }), // the same line again: dropped before anything is predicted
			like('b', { post: 'p1' }, at + 3), // the same like, different content: a reject
			like('a', { comment: 'c1' }),
		]
		const { summary, parts } = await importRecords(target, records)
		expect(summary.rejects).toBe(1)
		expect(parts).toContain('counters (exact as predicted)')
		expect(parts).not.toContain('counters')
		expect(await counters(target)).toEqual({ p1: [1, 2], c1: [1, 1], c2: [0, 0] })
		// Run again: everything matches, and the repeated like is still refused.
		const again = await importRecords(target, records)
		expect(Object.values(again.summary.imported).every((n) => n === 0)).toBe(true)
		expect(again.summary.matched).toEqual({
			user: 2,
			topic: 0,
			post: 1,
			comment: 2,
			like: 3,
			connection: 0,
		})
		expect(again.summary.rejects).toBe(1)
	})

	test('rejected children make predictions wrong: the recount corrects them', async () => {
		const target = (await newCommunity('import-mispredicted')).communityId
		const { summary, parts } = await importRecords(target, [
			user('a'),
			user('b'),
			post('q1'),
			post('q2'),
			comment('k1', 'q1'),
			// Staged under q2 and under k1, then refused: k1 is on another post.
			comment('k2', 'q2', 'k1'),
			like('ghost', { comment: 'k1' }),
			like('ghost', { post: 'q2' }),
		])
		expect(summary.rejects).toBe(3)
		expect(parts).toContain('counters')
		expect(await counters(target)).toEqual({ q1: [0, 1], q2: [0, 0], k1: [0, 0] })
	})

	test('children of rows that existed before are recounted, even when the sums agree', async () => {
		const target = (await newCommunity('import-existing-parents')).communityId
		await importRecords(target, [user('a'), user('b'), post('p1'), comment('c1', 'p1')])
		// Each kind of counter is predicted as many children as it gets placed, but the
		// predicted ones are refused and the placed ones go under p1 and c1, from before.
		const { summary, parts } = await importRecords(target, [
			post('p2'),
			like('ghost', { post: 'p2' }),
			like('b', { post: 'p2' }),
			like('a', { post: 'p1' }),
			comment('c3', 'p2', undefined, 'ghost'),
			comment('c4', 'p1'),
			comment('c5', 'p1', 'c1'),
			comment('c6', 'p2', 'c4'), // refused: c4 is on another post
			like('ghost', { comment: 'c4' }),
			like('a', { comment: 'c1' }),
		])
		expect(summary.rejects).toBe(4)
		expect(parts).toContain('counters')
		expect(await counters(target)).toEqual({
			p1: [1, 3],
			p2: [1, 0],
			c1: [1, 1],
			c4: [0, 0],
			c5: [0, 0],
		})
	})
})
