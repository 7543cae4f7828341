// Reactions on conversations through the HTTP API: one per member, changeable and
// removable, listed as {member, reaction} on every read (the cached newest page and
// sync included), with a webhook event; who may react.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { eventsFor } from '../support/content'
import { api } from '../support/http'
import { register } from '../support/webhooks'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser
let cal: TestUser
let roomId: string

beforeAll(async () => {
	community = await newCommunity('reactions')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
	cal = await newUser(community, { name: 'Cal' })
	roomId = (await newRoom(cm, { title: 'Lounge' })).id
	await follow(ana, roomId)
	await follow(ben, roomId)
})

const react = (user: TestUser, conversationId: string, reaction: string, chatroomId?: string) =>
	api('PUT', '/conversation/reaction', {
		token: user.token,
		body: { conversation_id: conversationId, reaction, chatroom_id: chatroomId },
	})

const unreact = (user: TestUser, conversationId: string) =>
	api('DELETE', '/conversation/reaction', {
		token: user.token,
		body: { conversation_id: conversationId, chatroom_id: roomId, reaction: '' },
	})

async function newestPage(user: TestUser) {
	const reply = await api('GET', `/conversation?chatroom_id=${roomId}`, { token: user.token })
	return reply.body.data.conversations as any[]
}

const reactionsOn = async (user: TestUser, id: string) =>
	(await newestPage(user))
		.find((c) => c.id === id)
		.reactions.map((r: any) => [r.member.uuid, r.reaction])

describe('reacting', () => {
	test('one reaction per member, changed in place, removed; the cached page follows', async () => {
		const message = await say(ana, roomId, 'react to me')
		expect(await reactionsOn(ben, message.id)).toEqual([])
		// the page is now cached: each change below must show on the next read
		expect((await react(ben, message.id, '👍', roomId)).status).toBe(200)
		expect(await reactionsOn(ana, message.id)).toEqual([[ben.uuid, '👍']])
		expect((await react(ben, message.id, '❤️')).status).toBe(200)
		expect((await react(cm, message.id, '🎉')).status).toBe(200)
		const reactions = (await newestPage(ana)).find((c) => c.id === message.id).reactions
		expect(reactions).toHaveLength(2)
		expect(reactions[0]).toEqual({
			member: expect.objectContaining({ id: String(ben.id), uuid: ben.uuid, name: 'Ben' }),
			reaction: '❤️',
		})
		expect(reactions[1].reaction).toBe('🎉')
		expect((await unreact(ben, message.id)).status).toBe(200)
		expect(await reactionsOn(ana, message.id)).toEqual([[cm.uuid, '🎉']])
	})

	test('a reaction is a change that sync clients see', async () => {
		const message = await say(ana, roomId, 'sync me')
		const after = Date.now() + 1
		// The server's max_timestamp is its now: a sync within the same millisecond as
		// `after` would ask for min after max (a 400).
		await Bun.sleep(2)
		const sync = () =>
			api('GET', `/conversation/sync?chatroom_id=${roomId}&min_timestamp=${after}`, {
				token: ana.token,
			})
		expect((await sync()).body.data.conversations_data.map((c: any) => c.id)).not.toContain(
			message.id,
		)
		await Bun.sleep(2)
		await react(ben, message.id, '👀')
		const changed = (await sync()).body.data.conversations_data.find(
			(c: any) => c.id === message.id,
		)
		expect(changed.reactions.map((r: any) => r.reaction)).toEqual(['👀'])
	})

	test('webhook events follow each change, not a repeat of the same reaction', async () => {
		// Without a webhook for them no reaction event is recorded (the events below, once
		// one is registered, are the positive control).
		const unheard = await say(ana, roomId, 'unheard')
		await react(ben, unheard.id, '🔥')
		const ofUnheard = (await eventsFor(community, 'chatroom.conversation.reacted')).filter(
			(e: any) => e.conversation.conversation_id === unheard.id,
		)
		expect(ofUnheard).toHaveLength(0)
		for (const type of ['chatroom.conversation.reacted', 'chatroom.conversation.reaction.removed'])
			await register({ community, cm }, 'http://127.0.0.1:9/reactions', type)
		const message = await say(ana, roomId, 'events')
		await react(ben, message.id, '🔥')
		await react(ben, message.id, '🔥')
		await unreact(ben, message.id)
		const reacted = (await eventsFor(community, 'chatroom.conversation.reacted')).filter(
			(e: any) => e.conversation.conversation_id === message.id,
		)
		expect(reacted).toHaveLength(1)
		expect(reacted[0]).toMatchObject({
			reaction: '🔥',
			user: { uuid: ben.uuid },
			chatroom: { id: roomId },
			conversation: { creator_id: ana.uuid, members: expect.arrayContaining([ana.uuid, ben.uuid]) },
		})
		const removed = (await eventsFor(community, 'chatroom.conversation.reaction.removed')).filter(
			(e: any) => e.conversation.conversation_id === message.id,
		)
		expect(removed).toHaveLength(1)
	})
})

describe('who may react', () => {
	test('a seat (or the CM role) is needed; unseen rooms are 404; bad input is 400', async () => {
		const message = await say(ana, roomId, 'members only')
		expect((await react(cal, message.id, '👍')).status).toBe(403)
		await follow(cal, roomId)
		expect((await react(cal, message.id, '👍')).status).toBe(200)
		const secret = await newRoom(cm, { title: 'Secret', is_secret: true })
		const hidden = await say(cm, secret.id, 'psst')
		expect((await react(ana, hidden.id, '👍')).status).toBe(404)
		expect((await react(ana, message.id, '👍', secret.id)).status).toBe(404)
		expect((await react(ana, '99999999', '👍')).status).toBe(404)
		const long = await react(ana, message.id, 'x'.repeat(33))
		expect(long.status).toBe(400)
		expect(long.body.error_message).toContain('reaction')
		await api('DELETE', '/conversation', {
			token: ana.token,
			body: { conversation_ids: [message.id] },
		})
		expect((await react(ben, message.id, '👍')).status).toBe(400)
		const deleted = (await newestPage(ana)).find((c) => c.id === message.id)
		expect(deleted.reactions).toEqual([])
	})
})
