// The reconciler repairs only what failed: a post whose Redis placement failed after
// its commit keeps a durable mark and is re-placed in every affected feed by the next
// repair pass; writes Redis took leave no mark, and a pass then touches none of them.
import { beforeAll, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { flushFeedConfirmations, repairUnconfirmed } from '../../src/timelines/feed-marks'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createPost, createTopic, feed, ids } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser
let viewer: TestUser
let topic: string

beforeAll(async () => {
	community = await newCommunity('feed-marks')
	const cm = await newUser(community, { role: 'cm' })
	author = await newUser(community, { name: 'Author' })
	viewer = await newUser(community, { name: 'Viewer' })
	topic = await createTopic(cm, 'Marks')
	await createPost(author, { text: 'first', topic_ids: [topic] })
})

const marksOf = async () =>
	(await sql`select post_id from feed_marks where community_id = ${community.communityId}`).map(
		(r) => r.post_id as string,
	)

test('a clean pass re-places nothing: writes Redis took leave no mark', async () => {
	const kept = await createPost(author, { text: 'kept', topic_ids: [topic] })
	const gone = await createPost(author, { text: 'gone' })
	const edited = await api('PUT', `/feed/post/${kept._id}`, {
		token: author.token,
		body: { text: 'kept, edited' },
	})
	expect(edited.status).toBe(200)
	expect((await api('DELETE', `/feed/post/${gone._id}`, { token: author.token })).status).toBe(200)
	await flushFeedConfirmations()
	expect(await marksOf()).toEqual([])
	const repaired = await repairUnconfirmed(0)
	expect(repaired).not.toContain(kept._id)
	expect(repaired).not.toContain(gone._id)
})

test('a post whose feed write failed after commit is in every affected feed after the next pass', async () => {
	const universal = keys.universalFeed(community.communityId)
	const topicFeed = keys.topicFeed(community.communityId, topic)
	expect(ids((await feed(viewer)).posts).length).toBeGreaterThan(0)
	const saved = await Promise.all(
		[universal, topicFeed].map((key) => redis.zrange(key, 0, -1, 'WITHSCORES')),
	)
	// A key of the wrong type makes Redis refuse the ZADD (WRONGTYPE): a real failed write.
	await redis.set(universal, 'not a sorted set')
	await redis.set(topicFeed, 'not a sorted set')
	const lost = await createPost(author, { text: 'lost in redis', topic_ids: [topic] })
	await flushFeedConfirmations()
	expect(await marksOf()).toEqual([lost._id])
	// Redis is well again, holding what it held before the failed write; nothing but
	// the repair pass brings the post back.
	await redis.del(universal, topicFeed)
	for (const [i, key] of [universal, topicFeed].entries()) {
		const members = saved[i] as string[]
		const pairs = []
		for (let j = 0; j < members.length; j += 2)
			pairs.push(members[j + 1] as string, members[j] as string)
		await redis.zadd(key, ...pairs)
	}
	expect(ids((await feed(viewer)).posts)).not.toContain(lost._id)

	expect(await repairUnconfirmed(0)).toContain(lost._id)
	expect(ids((await feed(viewer)).posts)[0]).toBe(lost._id)
	expect(ids((await feed(viewer, `topic_ids=${topic}`)).posts)[0]).toBe(lost._id)
	expect(await marksOf()).toEqual([])
	// Repaired once: the next pass has nothing of this community.
	expect(await repairUnconfirmed(0)).not.toContain(lost._id)
})

test('an edit whose write failed is repaired from the mark: the post leaves the topic it left', async () => {
	const post = await createPost(author, { text: 'moving', topic_ids: [topic] })
	const topicFeed = keys.topicFeed(community.communityId, topic)
	expect(await redis.zscore(topicFeed, post._id)).not.toBeNull()
	// The post cache key of the wrong type fails the placement of the edit.
	const cacheKey = keys.postCache(community.communityId, post._id)
	await redis.del(cacheKey, keys.cacheGeneration(cacheKey))
	await redis.sadd(keys.cacheGeneration(cacheKey), 'x')
	const edit = await api('PUT', `/feed/post/${post._id}`, {
		token: author.token,
		body: { topic_ids: [] },
	})
	expect(edit.status).toBe(200)
	await flushFeedConfirmations()
	expect(await marksOf()).toEqual([post._id])
	expect(await redis.zscore(topicFeed, post._id)).not.toBeNull()
	await redis.del(keys.cacheGeneration(cacheKey))

	expect(await repairUnconfirmed(0)).toContain(post._id)
	expect(await redis.zscore(topicFeed, post._id)).toBeNull()
	expect(ids((await feed(viewer, `topic_ids=${topic}`)).posts)).not.toContain(post._id)
	expect(await marksOf()).toEqual([])
})
