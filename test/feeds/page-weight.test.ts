// Issue 15, finding 4: what one feed page can weigh is capped (FEED_PAGE_MAX_BYTES).
// A page of the default size is never cut, even of the heaviest posts a body can
// create; a page over the cap stops before the post that would pass it (at least one),
// and the universal feed's next_cursor goes on right after it, so nothing is skipped.
// Each case asks for its own page_size: the cap is read when a page is computed, and
// shared universal pages are kept per page_size (the cap never changes in a process).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { config } from '../../src/config'
import { drainFanOut } from '../../src/timelines/fanout'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { newPost } from '../support/content'
import { api } from '../support/http'

const POSTS = 20
let author: TestUser
let friend: TestUser
let posted: string[] // newest first
const savedCap = config.FEED_PAGE_MAX_BYTES

/**
 * The heaviest post the default body limit lets through: 10 attachments of 16 KB of
 * metadata each, and 10,000 characters that JSON writes six bytes each (`\u0001`).
 */
function heaviestPost(n: number) {
	const meta = { a: 'x'.repeat(16 * 1024 - 8) } // {"a":"…"} is 8 bytes + the string
	return {
		text: `${n}${'\u0001'.repeat(9_990)}`,
		heading: 'h'.repeat(300),
		attachments: Array.from({ length: 10 }, () => ({ attachment_type: 1, attachment_meta: meta })),
	}
}

beforeAll(async () => {
	const community = await newCommunity('page-weight')
	await enableConnections(community)
	;[author, friend] = await Promise.all([newUser(community), newUser(community)])
	await connect(author, friend, 'two_way')
	posted = []
	for (let n = 0; n < POSTS; n++) posted.unshift(await newPost(author, heaviestPost(n)))
	await drainFanOut()
})

afterAll(() => {
	config.FEED_PAGE_MAX_BYTES = savedCap
})

const read = (path: string) => api('GET', path, { token: friend.token })
const postsOf = (path: string, data: any): any[] =>
	path.startsWith('/feed/connection') ? data.feed : data.posts
const weight = (posts: unknown[]) => posts.reduce<number>((n, p) => n + JSON.stringify(p).length, 0)

describe('feed page weight', () => {
	test('a default-size page of the heaviest posts is never cut', async () => {
		for (const path of ['/feed/universal', '/feed/connection', '/feed/personalised']) {
			const reply = await read(`${path}?page=1&page_size=${POSTS}`)
			expect(reply.status).toBe(200)
			const posts = postsOf(path, reply.body.data)
			expect(posts.map((p) => p._id).sort()).toEqual([...posted].sort())
			expect(weight(posts)).toBeLessThan(config.FEED_PAGE_MAX_BYTES)
		}
	})

	test('over the cap a page stops before the post that would pass it, at least one post', async () => {
		const reply = await read(`/feed/universal?page=1&page_size=${POSTS}`)
		const one = JSON.stringify(reply.body.data.posts[0]).length
		config.FEED_PAGE_MAX_BYTES = Math.floor(one * 3.5) // room for three posts, not four
		try {
			for (const path of ['/feed/universal', '/feed/connection', '/feed/personalised']) {
				const page = postsOf(path, (await read(`${path}?page=1&page_size=${POSTS - 1}`)).body.data)
				expect({ path, served: page.length }).toEqual({ path, served: 3 })
				expect(weight(page)).toBeLessThanOrEqual(config.FEED_PAGE_MAX_BYTES)
			}
			config.FEED_PAGE_MAX_BYTES = 1 // lighter than any post: one post a page
			for (const path of ['/feed/universal', '/feed/connection', '/feed/personalised']) {
				const page = postsOf(path, (await read(`${path}?page=1&page_size=${POSTS - 2}`)).body.data)
				expect({ path, served: page.length }).toEqual({ path, served: 1 })
			}
		} finally {
			config.FEED_PAGE_MAX_BYTES = savedCap
		}
	})

	test("the universal feed's next_cursor goes on right after a cut page: every post once", async () => {
		const reply = await read(`/feed/universal?page=1&page_size=${POSTS}`)
		config.FEED_PAGE_MAX_BYTES = Math.floor(JSON.stringify(reply.body.data.posts[0]).length * 3.5)
		try {
			const seen: string[] = []
			let cursor: string | null = null
			do {
				const query: string = cursor ? `&cursor=${cursor}` : ''
				const data: any = (await read(`/feed/universal?page_size=${POSTS - 3}${query}`)).body.data
				expect(data.posts.length).toBeGreaterThan(0)
				seen.push(...data.posts.map((p: any) => p._id))
				cursor = data.next_cursor
			} while (cursor)
			expect(seen).toEqual(posted)
		} finally {
			config.FEED_PAGE_MAX_BYTES = savedCap
		}
	})
})
