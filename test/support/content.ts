// Content through the HTTP API, as a client makes it: posts, topics, feed reads, tags,
// and the events a change recorded.
import { expect } from 'bun:test'
import { sql } from '../support/db'
import type { TestCommunity, TestUser } from './community'
import { api } from './http'

/** POST /feed/post (text 'hello' unless given); returns the post as answered. */
export async function createPost(author: TestUser, body: Record<string, unknown> = {}) {
	const reply = await api('POST', '/feed/post', {
		token: author.token,
		body: { text: 'hello', ...body },
	})
	if (reply.status !== 200)
		throw new Error(`create post failed ${reply.status}: ${JSON.stringify(reply.body)}`)
	return reply.body.data.post
}

/** createPost for tests that need only the new post's id. */
export async function newPost(author: TestUser, body: Record<string, unknown> = {}) {
	return (await createPost(author, body))._id as string
}

export async function createTopic(cm: TestUser, name: string): Promise<string> {
	const reply = await api('POST', '/feed/topic', { token: cm.token, body: { names: [name] } })
	expect(reply.status).toBe(200)
	return reply.body.topics[0].id
}

export async function setTopicEnabled(
	cm: TestUser,
	topicId: string,
	enabled: boolean,
): Promise<void> {
	const reply = await api('PUT', `/feed/topic/${topicId}`, {
		token: cm.token,
		body: { is_enabled: enabled },
	})
	expect(reply.status).toBe(200)
}

/** A feed's `data` (universal unless another path is given); fails unless 200. */
export async function feed(user: TestUser, query = '', path = '/feed/universal') {
	const reply = await api('GET', `${path}${query ? `?${query}` : ''}`, { token: user.token })
	if (reply.status !== 200)
		throw new Error(`feed failed ${reply.status}: ${JSON.stringify(reply.body)}`)
	return reply.body.data
}

export const ids = (posts: { _id: string }[]) => posts.map((p) => p._id)

/** The tag syntax of texts (DESIGN §3). */
export const tag = (user: TestUser) => `<<${user.name}|route://member/${user.uuid}>>`

/** The `data` of every event of one type the community recorded, oldest first. */
export async function eventsFor(community: TestCommunity, event: string) {
	const rows = await sql`
		select data from events where community_id = ${community.communityId} and event = ${event} order by created_at, id`
	return rows.map((r) => r.data)
}
