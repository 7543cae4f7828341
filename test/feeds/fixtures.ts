// Shared helpers of the post and feed tests: topics and posts through the HTTP API.
import { expect } from 'bun:test'
import type { TestUser } from '../support/community'
import { api } from '../support/http'

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

export async function createPost(user: TestUser, body: Record<string, unknown>) {
	const reply = await api('POST', '/feed/post', { token: user.token, body })
	if (reply.status !== 200)
		throw new Error(`create post failed ${reply.status}: ${JSON.stringify(reply.body)}`)
	return reply.body.data.post
}

export async function feed(user: TestUser, query = '', path = '/feed/universal') {
	const reply = await api('GET', `${path}${query ? `?${query}` : ''}`, { token: user.token })
	if (reply.status !== 200)
		throw new Error(`feed failed ${reply.status}: ${JSON.stringify(reply.body)}`)
	return reply.body.data
}

export const ids = (posts: { _id: string }[]) => posts.map((p) => p._id)
