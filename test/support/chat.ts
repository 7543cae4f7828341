// Chat helpers shared by the chatroom, conversation, poll and cohort tests: each goes
// through the HTTP API and fails loudly when the call does not succeed.
import type { TestUser } from './community'
import { api } from './http'

async function expectOk(reply: { status: number; body: any }, what: string) {
	if (reply.status !== 200)
		throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`)
	return reply.body
}

/** POST /chatroom as `cm`; returns the chatroom object. */
export async function newRoom(cm: TestUser, body: Record<string, unknown> = {}) {
	const reply = await api('POST', '/chatroom', {
		token: cm.token,
		body: { title: 'Room', ...body },
	})
	return (await expectOk(reply, 'create chatroom')).data.chatroom
}

/** PUT /chatroom/follow (join by default). */
export async function follow(user: TestUser, chatroomId: string, value = true) {
	const reply = await api('PUT', '/chatroom/follow', {
		token: user.token,
		body: { chatroom_id: chatroomId, value },
	})
	await expectOk(reply, 'follow')
}

/** POST /conversation; returns the conversation object. */
export async function say(user: TestUser, chatroomId: string, text: string, extra = {}) {
	const reply = await api('POST', '/conversation', {
		token: user.token,
		body: { chatroom_id: chatroomId, text, ...extra },
	})
	return (await expectOk(reply, 'post conversation')).data.conversation
}

/** GET /chatroom?chatroom_id= as `user`; returns `data`. */
export async function roomAs(user: TestUser, chatroomId: string) {
	const reply = await api('GET', `/chatroom?chatroom_id=${chatroomId}`, { token: user.token })
	return (await expectOk(reply, 'get chatroom')).data
}
