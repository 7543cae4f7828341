// topics.post_count off the hot rows (issue 40): posts into one topic do not wait for
// each other's COMMIT, and the count stays exact through creates, deletes, topic
// changes and concurrent posts, before and after the deltas are folded into the row.
import { beforeAll, describe, expect, test } from 'bun:test'
import { transaction } from '../../src/lib/db'
import { softDeletePost } from '../../src/modules/posts/repo'
import { flushTopicCounts } from '../../src/modules/topics/repo'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createTopic, newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser

beforeAll(async () => {
	community = await newCommunity('topic-counts')
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community)
})

/** post_count of each topic as GET /feed/topic answers it. */
async function countsOf(topicIds: string[], viewer = member): Promise<Record<string, number>> {
	const reply = await api('GET', '/feed/topic?page_size=100', { token: viewer.token })
	expect(reply.status).toBe(200)
	const counts: Record<string, number> = {}
	for (const t of reply.body.topics as { id: string; post_count: number }[])
		if (topicIds.includes(t.id)) counts[t.id] = t.post_count
	return counts
}

const stored = async (topicId: string) =>
	((await sql`select post_count from topics where id = ${topicId}`)[0] as { post_count: number })
		.post_count
const flush = () => transaction((tx) => flushTopicCounts(tx))

describe('topic post counts', () => {
	test('concurrent posts into shared topics, deletes and topic changes count exactly', async () => {
		const topics = [
			await createTopic(cm, 'Count A'),
			await createTopic(cm, 'Count B'),
			await createTopic(cm, 'Count C'),
		]
		const [a, b, c] = topics as [string, string, string]
		const authors = await Promise.all([1, 2, 3, 4].map(() => newUser(community)))
		const expected: Record<string, number> = { [a]: 0, [b]: 0, [c]: 0 }
		const bodies = Array.from({ length: 60 }, (_, i) => {
			const ids = i % 3 === 0 ? [a, b] : i % 3 === 1 ? [b] : [c, a]
			for (const id of ids) expected[id] = (expected[id] as number) + 1
			return { text: `counted ${i}`, topic_ids: ids }
		})
		const posts = await Promise.all(
			bodies.map((body, i) => newPost(authors[i % authors.length] as TestUser, body)),
		)
		expect(await countsOf(topics)).toEqual(expected)

		// A delete takes the post out of its topics' counts.
		const deleted = posts[0] as string
		expect(
			(await api('DELETE', `/feed/post/${deleted}`, { token: authors[0]?.token })).status,
		).toBe(200)
		expected[a] = (expected[a] as number) - 1
		expected[b] = (expected[b] as number) - 1
		expect(await countsOf(topics)).toEqual(expected)

		// A topic change moves it: [b] → [c].
		const moved = posts[1] as string
		const edit = await api('PUT', `/feed/post/${moved}`, {
			token: authors[1]?.token,
			body: { text: 'moved', topic_ids: [c] },
		})
		expect(edit.status).toBe(200)
		expected[b] = (expected[b] as number) - 1
		expected[c] = (expected[c] as number) + 1
		expect(await countsOf(topics)).toEqual(expected)
		const one = await api('GET', `/feed/post/${moved}`, { token: member.token })
		expect(one.body.data.topics[c].post_count).toBe(expected[c])

		// Folding the deltas into the rows changes no answer, and the rows then hold the counts.
		expect(await stored(a)).toBe(0)
		expect(await flush()).toBeGreaterThan(0)
		expect(await countsOf(topics)).toEqual(expected)
		for (const id of topics) expect(await stored(id)).toBe(expected[id] as number)
		// A second flush finds nothing left.
		expect(await flush()).toBe(0)
		expect(await countsOf(topics)).toEqual(expected)
	})

	test('a post into a topic does not wait for another transaction that counts in it', async () => {
		const topic = await createTopic(cm, 'Busy')
		const author = await newUser(community)
		const first = await newPost(author, { topic_ids: [topic] })
		let release!: () => void
		const held = new Promise<void>((resolve) => {
			release = resolve
		})
		let counted!: () => void
		const inside = new Promise<void>((resolve) => {
			counted = resolve
		})
		// A transaction that changes the topic's count (a delete) and stays open.
		const open = sql
			.begin(async (tx) => {
				await softDeletePost(tx, community.communityId, first, author.id, null, Date.now())
				counted()
				await held
				throw new Error('rolled back')
			})
			.catch(() => {})
		await inside
		try {
			const posted = newPost(author, { text: 'while the other is open', topic_ids: [topic] })
			const outcome = await Promise.race([
				posted.then(() => 'posted'),
				Bun.sleep(3000).then(() => 'waited'),
			])
			expect(outcome).toBe('posted')
			// The open transaction's change is not counted; the new post is.
			expect(await countsOf([topic])).toEqual({ [topic]: 2 })
		} finally {
			release()
			await open
		}
		expect(await countsOf([topic])).toEqual({ [topic]: 2 })
	})

	test('a pending post counts in its topics until refused; an approved one stays counted', async () => {
		const held = await newCommunity('topic-counts-pending')
		const [moderator, author] = [await newUser(held, { role: 'cm' }), await newUser(held)]
		const moderation = await api('PUT', '/community/settings/moderation', {
			token: moderator.token,
			body: { post_moderation: 'all' },
		})
		expect(moderation.status).toBe(200)
		const topic = await createTopic(moderator, 'Held')
		const decide = async (postId: string, action: string) => {
			const queue = await api('GET', '/community/report?filter_type=["pending_post"]', {
				token: moderator.token,
			})
			const handle = queue.body.data.reports_data.find(
				(g: { entity_id: string }) => g.entity_id === postId,
			)?.reports[0]?.id as number
			const reply = await api('PATCH', '/community/report', {
				token: moderator.token,
				body: { report_ids: [handle], action_taken: action },
			})
			expect(reply.status).toBe(200)
		}
		const refused = await newPost(author, { text: 'not fit', topic_ids: [topic] })
		const approved = await newPost(author, { text: 'fit', topic_ids: [topic] })
		expect(await countsOf([topic], author)).toEqual({ [topic]: 2 })
		await decide(refused, 'PENDING_POST_REJECTED')
		expect(await countsOf([topic], author)).toEqual({ [topic]: 1 })
		await decide(approved, 'PENDING_POST_APPROVED')
		expect(await countsOf([topic], author)).toEqual({ [topic]: 1 })
		await flush()
		expect(await stored(topic)).toBe(1)
	})
})
