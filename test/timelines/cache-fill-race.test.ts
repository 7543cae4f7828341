// A read that missed the post cache loads the row from Postgres and then fills the
// cache. If a like commits and drops the key in between, that late fill must not put
// the older row back (it did: a stale likes_count until the TTL ended). Played here
// step by step: the late fill is the reader's own cacheFill with the generation it saw.
import { expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { newCommunity, newUser } from '../support/community'
import { feed, newPost } from '../support/content'
import { api } from '../support/http'

type CacheFill = (
	key: string,
	generationKey: string,
	seen: string,
	value: Buffer,
	ttl: number,
) => Promise<number>
const cacheFill = (redis as unknown as { cacheFill: CacheFill }).cacheFill.bind(redis)

test('a fill that loaded before a like committed is refused; the next read shows the like', async () => {
	const community = await newCommunity('cache-fill-race')
	const author = await newUser(community)
	const liker = await newUser(community)
	const postId = await newPost(author, { text: 'race' })
	await feed(liker) // fills the cache with likes_count 0
	const key = keys.postCache(community.communityId, postId)
	const generationKey = keys.cacheGeneration(key)
	const loadedBeforeLike = (await redis.getBuffer(key)) as Buffer
	expect(loadedBeforeLike.toString()).toContain('"likes_count":0')
	const seenBeforeLike = (await redis.get(generationKey)) ?? ''

	const liked = await api('PUT', `/feed/post/${postId}/like`, { token: liker.token })
	expect(liked.body.data.likes_count).toBe(1)

	// The slow reader's fill arrives now, with the generation it noted before loading.
	expect(await cacheFill(key, generationKey, seenBeforeLike, loadedBeforeLike, 600)).toBe(0)
	const post = (await feed(liker)).posts.find((p: { _id: string }) => p._id === postId)
	expect(post.likes_count).toBe(1)

	// Positive control: a fill with the current generation is stored.
	const current = (await redis.get(generationKey)) ?? ''
	expect(await cacheFill(key, generationKey, current, loadedBeforeLike, 600)).toBe(1)
	expect((await redis.getBuffer(key))?.toString()).toContain('"likes_count":0')
	await redis.del(key)
})

test('a created post is cached by its writer, and the same fill after a like is refused', async () => {
	const community = await newCommunity('cache-fill-created')
	const author = await newUser(community)
	const liker = await newUser(community)
	const postId = await newPost(author, { text: 'cached at once' })
	const key = keys.postCache(community.communityId, postId)
	const generationKey = keys.cacheGeneration(key)
	// No read yet: the writer's own copy is there, as a reader would have cached it.
	const written = (await redis.getBuffer(key)) as Buffer
	expect(written.toString()).toContain('"likes_count":0')
	await redis.del(key)
	await feed(liker)
	expect(((await redis.getBuffer(key)) as Buffer).toString()).toBe(written.toString())

	const liked = await api('PUT', `/feed/post/${postId}/like`, { token: liker.token })
	expect(liked.body.data.likes_count).toBe(1)
	// A creator's fill landing after the like (no generation seen) changes nothing.
	expect(await cacheFill(key, generationKey, '', written, 600)).toBe(0)
	const post = (await feed(liker)).posts.find((p: { _id: string }) => p._id === postId)
	expect(post.likes_count).toBe(1)
})
