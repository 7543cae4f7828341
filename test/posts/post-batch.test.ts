// New posts sent together share a transaction (group commit, posts/post-batch.ts) and
// each keeps the answer it would get alone: a post with an unknown or disabled topic is
// its own 400 and writes nothing while the others commit; a back-dated one emits no
// event; tags, topic counts, fan-out jobs, feed marks and the feeds are exact per post;
// texts with quotes, backslashes, braces and commas survive the set-based insert. Plain
// posts (no topics, widgets or tags) share one statement instead; when it fails, each
// runs alone.
import { beforeAll, describe, expect, test } from 'bun:test'
import { createPost } from '../../src/modules/posts/service'
import { findTopic } from '../../src/modules/topics/repo'
import { flushFeedConfirmations } from '../../src/timelines/feed-marks'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { createTopic, eventsFor, feed, ids, setTopicEnabled, tag } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let other: TestCommunity
let cm: TestUser
let writers: TestUser[]
let tagged: TestUser
let stranger: TestUser

beforeAll(async () => {
	community = await newCommunity('post-batch')
	other = await newCommunity('post-batch-other')
	cm = await newUser(community, { role: 'cm', name: 'Batch CM' })
	tagged = await newUser(community, { name: 'Tagged' })
	stranger = await newUser(other, { name: 'Stranger' })
	writers = await Promise.all(
		Array.from({ length: 8 }, (_, i) => newUser(community, { name: `Writer ${i}` })),
	)
	// Followed writers: their new posts get fan-out jobs (the stranger's do not).
	await enableConnections(community)
	const follower = await newUser(community, { name: 'Follower' })
	for (const writer of writers) await connect(follower, writer, 'one_way')
})

const post = (user: TestUser, body: Record<string, unknown>) =>
	api('POST', '/feed/post', { token: user.token, body })

describe('posts sent together (one group commit)', () => {
	test('each keeps its own answer; rows, events, tags, counts, jobs, marks and feeds exact', async () => {
		const topic = await createTopic(cm, 'Batched')
		const disabled = await createTopic(cm, 'Switched off')
		await setTopicEnabled(cm, disabled, false)
		const odd = `quote " backslash \\ braces {a,b} comma, "{}" NULL ünïcödé 🎉`
		const old = Date.now() - 30 * 86_400_000
		const w = (i: number) => writers[i] as TestUser
		const sent: [TestUser, Record<string, unknown>][] = [
			[w(0), { text: 'plain 0' }],
			[w(1), { text: 'plain 1', heading: 'Heading 1' }],
			[w(2), { text: odd, heading: odd }],
			[w(3), { text: 'on a topic', topic_ids: [topic] }],
			[w(4), { text: 'also on it', topic_ids: [topic, topic] }],
			[w(5), { text: 'disabled topic', topic_ids: [disabled] }],
			[w(6), { text: 'unknown topic', topic_ids: ['000000000000000000000000'] }],
			[w(7), { text: `hi ${tag(tagged)}` }],
			[w(0), { text: 'from the archive', created_at: old }],
			[w(1), { text: 'for connections', visibility: 'connections' }],
			[w(2), { text: 'private', visibility: 'private' }],
			[stranger, { text: 'another community' }],
			...Array.from({ length: 8 }, (_, i): [TestUser, Record<string, unknown>] => [
				w(i),
				{ text: `burst ${i}` },
			]),
		]
		// The communities' rows are held while posts are sent: the first batches wait on
		// them (a post's foreign key takes a key-share lock) and the others queue behind
		// them, so the posts share transactions however fast or loaded the machine is.
		const sendHeld = async (posts: [TestUser, Record<string, unknown>][]) => {
			let sending: ReturnType<typeof Promise.all<ReturnType<typeof post>[]>> | undefined
			await sql.begin(async (tx) => {
				await tx`select 1 from communities where id = any(${[community.communityId, other.communityId]}::int[]) for update`
				sending = Promise.all(posts.map(([user, body]) => post(user, body)))
				await Bun.sleep(300)
			})
			return await (sending as NonNullable<typeof sending>)
		}
		const failing = new Set([5, 6])
		// The good posts first (they share transactions), then the two with a bad topic
		// queued beside good ones: their batch fails, each runs alone, only they get a 400.
		const good = await sendHeld(sent.filter((_, i) => !failing.has(i)))
		const beside: [TestUser, Record<string, unknown>][] = [
			[w(0), { text: 'beside a bad topic' }],
			[w(1), { text: 'also beside it' }],
		]
		const withBad = await sendHeld([...sent.filter((_, i) => failing.has(i)), ...beside])
		expect(withBad.slice(2).map((r) => r.status)).toEqual([200, 200])
		const replies = sent.map((_, i) =>
			failing.has(i)
				? withBad[[...failing].indexOf(i)]
				: good[sent.slice(0, i).filter((_, j) => !failing.has(j)).length],
		)
		expect(replies.map((r) => r.status)).toEqual(sent.map((_, i) => (failing.has(i) ? 400 : 200)))
		expect(replies[5]?.body.error_message).toBe(`Topic ${disabled} is disabled`)
		expect(replies[6]?.body.error_message).toBe('Unknown topic 000000000000000000000000')

		// Each answer is its own post, as sent.
		const ok = sent.flatMap(([user, body], i) =>
			failing.has(i) ? [] : [{ user, body, post: replies[i]?.body.data.post }],
		)
		for (const { user, body, post } of ok) {
			expect(post.user_id).toBe(user.uuid)
			expect(post.text).toBe(body.text)
			expect(post.heading).toBe((body.heading as string | undefined) ?? '')
		}
		expect(replies[8]?.body.data.post.created_at).toBe(old)
		expect(replies[3]?.body.data.topics[topic].name).toBe('Batched')

		// Stored once each, as answered; they shared transactions.
		const okIds = ok.map((o) => o.post._id as string)
		const rows = await sql`
			select id, text, heading, visibility, created_at::float8 as created_at, xmin::text as tx
			from posts where id = any(${okIds}::text[])`
		expect(rows.length).toBe(okIds.length)
		const byId = new Map(rows.map((r) => [r.id, r]))
		for (const { body, post } of ok) {
			expect(byId.get(post._id)).toMatchObject({
				text: body.text,
				heading: (body.heading as string | undefined) ?? '',
				visibility: (body.visibility as string | undefined) ?? 'public',
				created_at: post.created_at,
			})
		}
		expect(new Set(rows.map((r) => r.tx)).size).toBeLessThanOrEqual(okIds.length / 2)
		const texts = (
			await sql`select text from posts where community_id = ${community.communityId}`
		).map((r) => r.text)
		expect(texts).not.toContain('disabled topic')
		expect(texts).not.toContain('unknown topic')

		expect((await findTopic(sql, community.communityId, topic))?.post_count).toBe(2)
		const tags =
			await sql`select post_id, user_id::float8 as user_id from post_tags where post_id = any(${okIds}::text[])`
		expect(tags.map((t) => ({ ...t }))).toEqual([
			{ post_id: replies[7]?.body.data.post._id, user_id: tagged.id },
		])

		// post.created once per post that is news (the back-dated one is history), post.tagged once.
		const created = (await eventsFor(community, 'post.created')).map((e) => e.post._id)
		const news = okIds.filter((id) => id !== replies[8]?.body.data.post._id)
		expect(created.filter((id) => okIds.includes(id)).sort()).toEqual(
			news.filter((id) => id !== replies[11]?.body.data.post._id).sort(),
		)
		expect((await eventsFor(other, 'post.created')).map((e) => e.post._id)).toEqual([
			replies[11]?.body.data.post._id,
		])
		const taggedEvents = (await eventsFor(community, 'post.tagged')).filter((e) =>
			okIds.includes(e.post._id),
		)
		expect(taggedEvents.map((e) => [e.post._id, e.tagged_users.map((u: any) => u.uuid)])).toEqual([
			[replies[7]?.body.data.post._id, [tagged.uuid]],
		])
		const activity = await api('GET', '/feed/user/activity?page=1&page_size=50', {
			token: tagged.token,
		})
		expect(
			activity.body.data.activities.filter(
				(a: any) => a.entity_id === replies[7]?.body.data.post._id,
			).length,
		).toBe(1)

		// One fan-out job per public or connections post of a followed author (none for the
		// stranger, whom nobody has followed); no mark left once confirmed.
		const jobs = await sql`select post_id from fanout_jobs where post_id = any(${okIds}::text[])`
		const privateId = replies[10]?.body.data.post._id
		const strangersId = replies[11]?.body.data.post._id
		expect(strangersId).toBeDefined()
		expect(jobs.map((j) => j.post_id).sort()).toEqual(
			okIds.filter((id) => id !== privateId && id !== strangersId).sort(),
		)
		await flushFeedConfirmations()
		expect(
			(await sql`select post_id from feed_marks where post_id = any(${okIds}::text[])`).length,
		).toBe(0)

		// In the feeds at once: every public post of the community, nothing else.
		const page = ids((await feed(cm, 'page_size=100')).posts)
		const publicIds = ok
			.filter(({ body, user }) => !body.visibility && user !== stranger)
			.map((o) => o.post._id)
		for (const id of publicIds) expect(page).toContain(id)
		expect(page).not.toContain(replies[9]?.body.data.post._id)
		expect(page).not.toContain(privateId)
		expect(page).not.toContain(replies[11]?.body.data.post._id)
		const topicPage = ids((await feed(cm, `topic_ids=${topic}`)).posts)
		expect(topicPage.sort()).toEqual(
			[replies[3]?.body.data.post._id, replies[4]?.body.data.post._id].sort(),
		)
	})
})

describe('plain posts sent together (one statement)', () => {
	test('a statement that fails writes nothing; its posts then run alone and only the bad one fails', async () => {
		const sessionOf = (user: TestUser) => ({
			userId: user.id,
			uuid: user.uuid,
			communityId: community.communityId,
			role: 'member' as const,
		})
		// No such user: the posts' foreign key fails the statement this post shares.
		const ghost = { ...sessionOf(writers[0] as TestUser), userId: 2_000_000_000 }
		const sessions = [
			...writers.slice(0, 3).map(sessionOf),
			ghost,
			sessionOf(writers[3] as TestUser),
		]
		const settled = await Promise.allSettled(
			sessions.map((s, i) => createPost(s, { text: `statement ${i}` })),
		)
		expect(settled.map((s) => s.status)).toEqual([
			'fulfilled',
			'fulfilled',
			'fulfilled',
			'rejected',
			'fulfilled',
		])
		const rows = await sql`
			select text, user_id from posts
			where community_id = ${community.communityId} and text like 'statement %' order by text`
		expect(rows.map((r) => r.text)).toEqual([
			'statement 0',
			'statement 1',
			'statement 2',
			'statement 4',
		])
		const done = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.post._id] : []))
		const created = (await eventsFor(community, 'post.created')).map((e) => e.post._id)
		for (const id of done) expect(created).toContain(id)
		const jobs = await sql`select post_id from fanout_jobs where post_id = any(${done}::text[])`
		expect(jobs.length).toBe(done.length)
		const page = ids((await feed(cm, 'page_size=100')).posts)
		for (const id of done) expect(page).toContain(id)
	})
})
