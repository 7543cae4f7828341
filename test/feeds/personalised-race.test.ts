// The personalised feed under concurrency (issue 40): thousands of posts by many
// authors through POST /feed/post, reads of the viewer's feed that fold placements in
// while they are written, recomputes (should_reorder) in between, a stretch of posts
// with no read at all (more placements than one read takes in), and fan-out that lags
// behind the reads (drained by the test now and then, as a busy worker would). Then
// every live post by someone the viewer follows must be on exactly one page of the
// feed (page_size=50, paged to the end), in rank order.
//
// Everything goes through the HTTP API in-process (app.handle): posts, reads,
// recomputes, deletions. The numbers stay inside the feed's documented bounds — at
// most 250 connection posts (what a recompute takes of followed authors) — so that
// every one of them belongs in the feed; no likes, comments or topics, so the rank
// is the connection boost, then recency: all connection posts first, newest first.
import { describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { createPost, newPost } from '../support/content'
import { api } from '../support/http'

const AUTHORS = 30
const FOLLOWED = 3
const WRITERS = 12

interface Written {
	id: string
	author: number
	createdAt: number
}

async function readPage(viewer: TestUser, query: string) {
	const reply = await api('GET', `/feed/personalised${query}`, { token: viewer.token })
	expect(reply.status).toBe(200)
	return reply.body.data as { posts: { _id: string; created_at: number }[]; total_count: number }
}

let turn = 0

/** Writes `count` posts, `WRITERS` at a time, each by the next author in turn. */
async function writePosts(authors: TestUser[], count: number, out: Written[]) {
	let next = 0
	await Promise.all(
		Array.from({ length: WRITERS }, async () => {
			while (next < count) {
				const i = next++
				const a = turn++ % authors.length
				const post = await createPost(authors[a] as TestUser, { text: `post ${i}` })
				out.push({ id: post._id, author: a, createdAt: post.created_at })
			}
		}),
	)
}

/** Reads page 1 (and now and then a deeper page) until `stop` resolves. */
async function readHard(viewer: TestUser, stop: { done: boolean }) {
	let n = 0
	while (!stop.done) {
		n++
		await readPage(viewer, n % 5 === 0 ? '?page=3&page_size=50' : '?page=1&page_size=50')
	}
	return n
}

/** Drains fan-out every `ms` until `stop` (fan-out lags the reads, as a busy worker does). */
async function lagFanOut(stop: { done: boolean }, ms: number) {
	while (!stop.done) {
		await Bun.sleep(ms)
		await drainFanOut()
	}
}

async function during<T>(work: () => Promise<T>, viewer: TestUser, readers: number) {
	const stop = { done: false }
	const background = Promise.all([
		...Array.from({ length: readers }, () => readHard(viewer, stop)),
		lagFanOut(stop, 150),
	])
	try {
		return await work()
	} finally {
		stop.done = true
		await background
	}
}

const recompute = (viewer: TestUser) => readPage(viewer, '?should_reorder=true&page_size=50')

describe('personalised feed under concurrent posts, folds and recomputes', () => {
	test('every live post of a followed author is on exactly one page, in rank order', async () => {
		const community = await newCommunity('personalised-race')
		await enableConnections(community)
		const viewer = await newUser(community)
		const authors = await Promise.all(
			Array.from({ length: AUTHORS }, (_, i) => newUser(community, { name: `Author ${i}` })),
		)
		for (let i = 0; i < FOLLOWED; i++) await connect(viewer, authors[i] as TestUser)
		const written: Written[] = []

		// Read hard while posts come; a recompute runs while posts are written and read.
		await during(
			async () => {
				await writePosts(authors, 500, written)
				await Promise.all([recompute(viewer), writePosts(authors, 400, written)])
			},
			viewer,
			3,
		)
		await recompute(viewer)
		// More placements than one read takes in, with no read between; then reads again
		// while more connection posts come since the recompute than a read looks back at.
		await writePosts(authors, 700, written)
		await during(() => writePosts(authors, 800, written), viewer, 3)

		// A few posts by followed authors are deleted: they must be on no page.
		const followedPosts = written.filter((w) => w.author < FOLLOWED)
		const deleted = new Set(followedPosts.filter((_, i) => i % 40 === 7).map((w) => w.id))
		for (const id of deleted) {
			const owner = authors[written.find((w) => w.id === id)?.author as number] as TestUser
			expect((await api('DELETE', `/feed/post/${id}`, { token: owner.token })).status).toBe(200)
		}
		await drainFanOut()

		const live = followedPosts.filter((w) => !deleted.has(w.id))
		expect(written.length).toBe(2400)
		expect(live.length).toBeGreaterThan(200)
		expect(followedPosts.length).toBeLessThanOrEqual(250)

		const seen: { _id: string; created_at: number }[] = []
		for (let page = 1; ; page++) {
			const { posts } = await readPage(viewer, `?page=${page}&page_size=50`)
			seen.push(...posts)
			if (posts.length < 50) break
		}
		const ids = seen.map((p) => p._id)
		const missing = live.filter((w) => !ids.includes(w.id))
		expect(missing.map((w) => w.id)).toEqual([])
		expect(ids.length).toBe(new Set(ids).size)
		for (const id of deleted) expect(ids).not.toContain(id)
		// Rank order: the followed authors' posts first, newest first (ties by id), then the rest.
		const followedIds = new Set(live.map((w) => w.id))
		const newestFirst = (a: { _id: string; created_at: number }, b: typeof a) =>
			b.created_at - a.created_at || (a._id < b._id ? 1 : -1)
		const head = seen.slice(0, live.length)
		expect(head.every((p) => followedIds.has(p._id))).toBe(true)
		expect(head.map((p) => p._id)).toEqual([...head].sort(newestFirst).map((p) => p._id))
		const rest = seen.slice(live.length)
		expect(rest.map((p) => p._id)).toEqual([...rest].sort(newestFirst).map((p) => p._id))
	}, 60_000)
})

describe('personalised feed whose stream position was trimmed away', () => {
	test('a read recomputes instead of skipping what the stream no longer holds', async () => {
		const community = await newCommunity('personalised-trim')
		const viewer = await newUser(community)
		const author = await newUser(community)
		const first = await newPost(author)
		expect((await readPage(viewer, '')).posts.map((p) => p._id)).toEqual([first])
		const unread: string[] = []
		for (let i = 0; i < 30; i++) unread.push(await newPost(author))
		// The stream drops its oldest entries (as MAXLEN does after 5,000 more placements).
		await redis.xtrim(keys.placements(community.communityId), 'MAXLEN', 0)
		const last = await newPost(author)
		const { posts, total_count } = await readPage(viewer, '?page_size=50')
		expect(posts.map((p) => p._id)).toEqual([last, ...unread.reverse(), first])
		expect(total_count).toBe(32)
	})
})
