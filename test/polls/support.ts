// Poll helpers for the poll tests: create a poll through POST /conversation, read it
// back as a given viewer, vote.
import { expect } from 'bun:test'
import type { TestUser } from '../support/community'
import { api } from '../support/http'

export const inAnHour = () => Math.floor(Date.now() / 1000) + 3600

export const createPoll = (
	user: TestUser,
	chatroomId: string,
	fields: Record<string, unknown> = {},
) =>
	api('POST', '/conversation', {
		token: user.token,
		body: {
			chatroom_id: chatroomId,
			state: 10,
			text: 'Lunch?',
			polls: [{ text: 'Pizza' }, { text: 'Sushi' }, { text: 'Salad' }],
			expiry_time: inAnHour(),
			...fields,
		},
	})

/** A poll that must be created; returns the conversation. */
export async function newPoll(
	user: TestUser,
	chatroomId: string,
	fields: Record<string, unknown> = {},
) {
	const reply = await createPoll(user, chatroomId, fields)
	if (reply.status !== 200) throw new Error(`poll: ${reply.status} ${JSON.stringify(reply.body)}`)
	return reply.body.data.conversation
}

/** The poll conversation as `user` sees it on the room's newest page. */
export async function pollAs(user: TestUser, chatroomId: string, conversationId: string) {
	const reply = await api('GET', `/conversation?chatroom_id=${chatroomId}&paginate_by=50`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	const found = reply.body.data.conversations.find((c: { id: string }) => c.id === conversationId)
	if (!found) throw new Error(`poll ${conversationId} not on the page`)
	return found
}

export const vote = (user: TestUser, conversationId: string, optionIds: string[]) =>
	api('POST', '/conversation/poll/submit', {
		token: user.token,
		body: { conversation_id: conversationId, polls: optionIds.map((id) => ({ id })) },
	})

export const votesOf = (poll: { polls: { no_votes: number }[] }) =>
	poll.polls.map((o) => o.no_votes)
