// Topic changes reach the Redis feeds at once: disabling hides posts whose topics are
// all disabled, enabling brings them back, deleting re-places the posts.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser

beforeAll(async () => {
	community = await newCommunity('topic-feeds')
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community)
})

const feedIds = async (query = '') =>
	(await api('GET', `/feed/universal${query}`, { token: member.token })).body.data.posts.map(
		(p: any) => p._id,
	)

describe('topic state and the universal feed', () => {
	test('disable hides, enable restores, post_count counts the posts', async () => {
		const [a, b] = (
			await api('POST', '/feed/topic', { token: cm.token, body: { names: ['FeedA', 'FeedB'] } })
		).body.topics
		const onlyA = await newPost(member, { text: 'x', topic_ids: [a.id] })
		const both = await newPost(member, { text: 'x', topic_ids: [a.id, b.id] })
		expect(await feedIds()).toEqual(expect.arrayContaining([onlyA, both]))
		const listed = await api('GET', '/feed/topic?search=FeedA', { token: member.token })
		expect(listed.body.topics[0].post_count).toBe(2)

		await api('PUT', `/feed/topic/${a.id}`, { token: cm.token, body: { is_enabled: false } })
		const afterDisable = await feedIds()
		expect(afterDisable).not.toContain(onlyA)
		expect(afterDisable).toContain(both)
		expect(await feedIds(`?topic_ids=${a.id}`)).toEqual([])
		// A disabled topic cannot be given to new posts.
		expect(
			(
				await api('POST', '/feed/post', {
					token: member.token,
					body: { text: 'x', topic_ids: [a.id] },
				})
			).status,
		).toBe(400)

		await api('PUT', `/feed/topic/${a.id}`, { token: cm.token, body: { is_enabled: 'true' } })
		expect(await feedIds()).toEqual(expect.arrayContaining([onlyA, both]))
	})

	test('deleting a disabled topic brings its posts back as untagged posts', async () => {
		const [t] = (await api('POST', '/feed/topic', { token: cm.token, body: { names: ['Doomed'] } }))
			.body.topics
		const p = await newPost(member, { text: 'x', topic_ids: [t.id] })
		await api('PUT', `/feed/topic/${t.id}`, { token: cm.token, body: { is_enabled: false } })
		expect(await feedIds()).not.toContain(p)
		await api('DELETE', '/feed/topic', { token: cm.token, body: { topic_ids: [t.id] } })
		expect(await feedIds()).toContain(p)
		const got = await api('GET', `/feed/post/${p}`, { token: member.token })
		expect(got.body.data.post.topics).toEqual([])
	})
})
