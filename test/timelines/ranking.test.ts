import { describe, expect, test } from 'bun:test'
import { type RankInput, RankWeights, rankPost, topicAffinityOf } from '../../src/timelines/ranking'

const now = 1_800_000_000_000
const hour = 3_600_000
const base: RankInput = {
	createdAt: now,
	likes: 0,
	comments: 0,
	shares: 0,
	reach: 0,
	isPinned: false,
	isConnection: false,
	authorAffinity: 0,
	topicAffinity: 0,
}
const rank = (over: Partial<RankInput>) => rankPost({ ...base, ...over }, now)

describe('rankPost', () => {
	test('a new post without signals scores 1; it halves every 24 hours', () => {
		expect(rank({})).toBe(1)
		expect(rank({ createdAt: now - 24 * hour })).toBeCloseTo(0.5, 10)
		expect(rank({ createdAt: now - 48 * hour })).toBeCloseTo(0.25, 10)
	})

	test('newer beats older at equal signals', () => {
		expect(rank({ createdAt: now - hour })).toBeGreaterThan(rank({ createdAt: now - 2 * hour }))
	})

	test('engagement raises the score, logarithmically; comments weigh more than likes, shares more than comments', () => {
		expect(rank({ likes: 1 })).toBeGreaterThan(rank({}))
		expect(rank({ comments: 1 })).toBeGreaterThan(rank({ likes: 1 }))
		expect(rank({ shares: 1 })).toBeGreaterThan(rank({ comments: 1 }))
		expect(rank({ reach: 100 })).toBeGreaterThan(rank({}))
		expect(rank({ likes: 10 })).toBeCloseTo(1 + RankWeights.ENGAGEMENT_WEIGHT * Math.log(11), 10)
		// 1,000 likes is not 100 times 10 likes.
		expect(rank({ likes: 1000 }) / rank({ likes: 10 })).toBeLessThan(3)
	})

	test('a day-old post with real engagement outranks a fresh one with none', () => {
		expect(rank({ createdAt: now - 24 * hour, likes: 20, comments: 5 })).toBeGreaterThan(rank({}))
	})

	test('affinity: connection, author and topic each add', () => {
		expect(rank({ isConnection: true })).toBeCloseTo(1 + RankWeights.CONNECTION_BOOST, 10)
		expect(rank({ authorAffinity: 3 })).toBeGreaterThan(rank({}))
		expect(rank({ topicAffinity: 3 })).toBeGreaterThan(rank({}))
		expect(rank({ authorAffinity: 3 })).toBeGreaterThan(rank({ topicAffinity: 3 }))
	})

	test('pinned posts are boosted', () => {
		expect(rank({ isPinned: true })).toBe(RankWeights.PINNED_BOOST)
		expect(rank({ isPinned: true, createdAt: now - 20 * hour })).toBeGreaterThan(rank({}))
	})

	test('scores at different reference times keep their order (fresh posts score above 1)', () => {
		const posts = [
			{ ...base, createdAt: now - 5 * hour, likes: 3 },
			{ ...base, createdAt: now + 2 * hour },
			{ ...base, createdAt: now - hour, isConnection: true },
		]
		const order = (t: number) =>
			posts
				.map((p, i) => ({ i, s: rankPost(p, t) }))
				.sort((a, b) => b.s - a.s)
				.map((x) => x.i)
		expect(order(now)).toEqual(order(now + 10 * hour))
		expect(rankPost(posts[1]!, now)).toBeGreaterThan(1)
	})

	test('bad counts count as zero', () => {
		expect(rank({ likes: -5, comments: Number.NaN })).toBe(1)
	})
})

describe('topicAffinityOf', () => {
	test('sums the weights of the post topics', () => {
		expect(topicAffinityOf(['a', 'b', 'c'], { a: 2, c: 1.5, z: 9 })).toBe(3.5)
		expect(topicAffinityOf([], { a: 2 })).toBe(0)
	})
})
