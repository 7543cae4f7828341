// A member's chosen topics: PATCH /feed/user/:uuid/topics (feed-js's map of id → chosen,
// or a list), GET /feed/user/topics, who may change them, bad input, and the
// personalised feed ranking a chosen topic's post above an equal post without it.
import { describe, expect, test } from 'bun:test'
import { drainRecomputeQueue } from '../../src/timelines/recompute'
import { newCommunity, newUser } from '../support/community'
import { createTopic, newPost, setTopicEnabled } from '../support/content'
import { api } from '../support/http'

describe('chosen topics', () => {
	test('choose, drop, read back; only the member or a CM; unknown and disabled topics refused', async () => {
		const community = await newCommunity()
		const cm = await newUser(community, { role: 'cm' })
		const member = await newUser(community)
		const other = await newUser(community)
		const [cooking, travel, off] = [
			await createTopic(cm, 'Cooking'),
			await createTopic(cm, 'Travel'),
			await createTopic(cm, 'Off'),
		]
		await setTopicEnabled(cm, off, false)
		const patch = (by: typeof member, uuid: string, topic_ids: unknown) =>
			api('PATCH', `/feed/user/${uuid}/topics`, { token: by.token, body: { topic_ids } })
		expect((await patch(member, member.uuid, { [cooking]: true, [travel]: true })).status).toBe(200)
		expect((await patch(member, member.uuid, { [travel]: false })).status).toBe(200)
		const read = await api(
			'GET',
			`/feed/user/topics?uuids=${encodeURIComponent(JSON.stringify([member.uuid, other.uuid]))}`,
			{
				token: other.token,
			},
		)
		expect(read.status).toBe(200)
		expect(read.body.data.user_topics).toEqual({ [member.uuid]: [cooking], [other.uuid]: [] })
		expect(read.body.data.topics[cooking].name).toBe('Cooking')
		expect(read.body.data.users[member.uuid].uuid).toBe(member.uuid)
		// without uuids: the caller's own
		const own = await api('GET', '/feed/user/topics', { token: member.token })
		expect(own.body.data.user_topics).toEqual({ [member.uuid]: [cooking] })

		// someone else's: 403 for a member, fine for a CM (a list reads as all chosen)
		expect((await patch(other, member.uuid, { [travel]: true })).status).toBe(403)
		expect((await patch(cm, member.uuid, [travel])).status).toBe(200)
		const after = await api('GET', '/feed/user/topics', { token: member.token })
		expect(after.body.data.user_topics[member.uuid].sort()).toEqual([cooking, travel].sort())

		const unknown = await patch(member, member.uuid, { nope: true })
		expect(unknown.status).toBe(400)
		expect(unknown.body.error_message).toContain('topic_ids')
		const disabled = await patch(member, member.uuid, { [off]: true })
		expect(disabled.status).toBe(400)
		expect(disabled.body.error_message).toContain('disabled')
		expect((await patch(member, member.uuid, 'cooking')).status).toBe(400)
		expect((await patch(member, '00000000-0000-4000-8000-000000000000', [cooking])).status).toBe(
			404,
		)
	})

	test('the personalised feed ranks a chosen topic above an equal post without it', async () => {
		const community = await newCommunity()
		const cm = await newUser(community, { role: 'cm' })
		const author = await newUser(community)
		const chooser = await newUser(community)
		const control = await newUser(community)
		const topic = await createTopic(cm, 'Gardening')
		const now = Date.now()
		const inTopic = await newPost(author, {
			text: 'roses',
			topic_ids: [topic],
			created_at: now - 120_000,
		})
		// a minute newer: first for anyone who did not choose the topic
		const plain = await newPost(author, { text: 'weather', created_at: now - 60_000 })
		const chose = await api('PATCH', `/feed/user/${chooser.uuid}/topics`, {
			token: chooser.token,
			body: { topic_ids: { [topic]: true } },
		})
		expect(chose.status).toBe(200)
		await drainRecomputeQueue()
		const order = async (viewer: typeof chooser) => {
			const reply = await api('GET', '/feed/personalised?should_recompute=false', {
				token: viewer.token,
			})
			expect(reply.status).toBe(200)
			return reply.body.data.posts.map((p: { _id: string }) => p._id)
		}
		expect(await order(control)).toEqual([plain, inTopic])
		expect(await order(chooser)).toEqual([inTopic, plain])
	})
})
