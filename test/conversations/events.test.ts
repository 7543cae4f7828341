// Chat events reach a local webhook receiver with source `chat` and the spec's data
// keys: joined/left with their methods, conversation.create with message.sent or
// poll.created, tags and replies. Also the notification seam: who hears of a message.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { recipientsOf } from '../../src/modules/conversations/recipients'
import { startDelivery } from '../../src/webhooks/engine'
import { follow, newRoom, say } from '../support/chat'
import { newUser, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { type Receiver, startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'
import { register, type Setup, setup } from '../support/webhooks'

let stopEngine: () => Promise<void>
let receiver: Receiver
let s: Setup
let ana: TestUser
let ben: TestUser

const chatEvents = [
	'chatroom.joined',
	'chatroom.left',
	'conversation.create',
	'chatroom.message.sent',
	'chatroom.poll.created',
	'chatroom.user.tagged',
	'chatroom.conversation.replied',
]

beforeAll(async () => {
	stopEngine = startDelivery({ pollMs: 20 })
	receiver = startReceiver()
	s = await setup('chat-events')
	ana = await newUser(s.community, { name: 'Ana' })
	ben = await newUser(s.community, { name: 'Ben' })
	for (const type of chatEvents) await register(s, receiver.url.replace('/hook', `/${type}`), type)
})

afterAll(async () => {
	await stopEngine()
	receiver.stop()
})

const received = (type: string) =>
	receiver.receipts.filter((r) => r.path === `/${type}`).map((r) => r.json)
const forRoom = (type: string, roomId: string) =>
	received(type).filter((e) => e.data.chatroom.id === roomId)

describe('chat events', () => {
	test('joined and left carry the chatroom, the user and how', async () => {
		const room = await newRoom(s.cm, { title: 'Evented' })
		await follow(ana, room.id)
		await api('PUT', '/chatroom/follow', {
			token: s.cm.token,
			body: { chatroom_id: room.id, uuid: ben.uuid },
		})
		await follow(ana, room.id, false)
		await waitFor(
			() =>
				forRoom('chatroom.joined', room.id).length === 3 &&
				forRoom('chatroom.left', room.id).length === 1,
		)
		const joined = forRoom('chatroom.joined', room.id)
		expect(joined.map((e) => [e.data.user.uuid, e.data.join_method])).toEqual([
			[s.cm.uuid, 'self_joined'],
			[ana.uuid, 'self_joined'],
			[ben.uuid, 'cm_added'],
		])
		const [left] = forRoom('chatroom.left', room.id)
		expect(left).toMatchObject({ event: 'chatroom.left', source: 'chat' })
		expect(left.data).toMatchObject({ left_method: 'self_left', user: { uuid: ana.uuid } })
		expect(Object.keys(left.data.chatroom).sort()).toEqual([
			'chatroom_image_url',
			'community_id',
			'community_name',
			'created_at',
			'header',
			'id',
			'is_secret',
			'participants_count',
			'title',
			'updated_at',
		])
	})

	test('a message fires conversation.create and chatroom.message.sent; tags and replies fire theirs', async () => {
		const room = await newRoom(s.cm, { title: 'Talk' })
		await follow(ana, room.id)
		await follow(ben, room.id)
		const first = await say(ana, room.id, 'hi all')
		const tagged = await say(ben, room.id, `hey <<Ana|route://member/${ana.uuid}>>`, {
			replied_conversation_id: first.id,
		})
		await waitFor(
			() =>
				forRoom('conversation.create', room.id).length === 2 &&
				forRoom('chatroom.message.sent', room.id).length === 2 &&
				forRoom('chatroom.user.tagged', room.id).length === 1 &&
				forRoom('chatroom.conversation.replied', room.id).length === 1,
		)
		const [created] = forRoom('conversation.create', room.id)
		expect(created.source).toBe('chat')
		expect(Object.keys(created.data).sort()).toEqual([
			'chatroom',
			'conversation',
			'created_by_user',
		])
		expect(created.data.conversation).toEqual({
			conversation_id: first.id,
			creator_id: ana.uuid,
			members: [s.cm.uuid, ana.uuid, ben.uuid],
			message: 'hi all',
			timestamp: first.created_at,
		})
		const [tag] = forRoom('chatroom.user.tagged', room.id)
		expect(tag.data.tagged_users.map((u: { uuid: string }) => u.uuid)).toEqual([ana.uuid])
		expect(tag.data.created_by_user.uuid).toBe(ben.uuid)
		expect(tag.data.conversation.conversation_id).toBe(tagged.id)
		const [replied] = forRoom('chatroom.conversation.replied', room.id)
		expect(replied.data.original_conversation.conversation_id).toBe(first.id)
		expect(replied.data.replied_conversation.conversation_id).toBe(tagged.id)
		expect(replied.data.original_conversation_user.uuid).toBe(ana.uuid)
		expect(replied.data.replied_conversation_user.uuid).toBe(ben.uuid)
		// a plain message was neither a tag nor a reply (the positive controls are above)
		expect(forRoom('chatroom.user.tagged', room.id)).toHaveLength(1)
	})

	test('a poll fires chatroom.poll.created instead of chatroom.message.sent', async () => {
		const room = await newRoom(s.cm, { title: 'Polling' })
		const reply = await api('POST', '/conversation', {
			token: s.cm.token,
			body: {
				chatroom_id: room.id,
				state: 10,
				text: 'Lunch?',
				polls: [{ text: 'Pizza' }, { text: 'Salad' }],
				expiry_time: Math.floor(Date.now() / 1000) + 3600,
			},
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.conversation.state).toBe(10)
		await waitFor(
			() =>
				forRoom('chatroom.poll.created', room.id).length === 1 &&
				forRoom('conversation.create', room.id).length === 1,
		)
		expect(forRoom('chatroom.message.sent', room.id)).toHaveLength(0)
		expect(forRoom('chatroom.poll.created', room.id)[0].data.conversation.message).toBe('Lunch?')
	})
})

describe('notification recipients (the seam for chat notifications)', () => {
	test('by noti_state and mute: 1 all, 2 tagged or replied, 3 also polls; never the author', async () => {
		const room = await newRoom(s.cm, { title: 'Notify' })
		const users: TestUser[] = []
		for (const name of ['All', 'Mentions', 'Polls', 'Muted'])
			users.push(await newUser(s.community, { name }))
		const [all, mentions, polls, muted] = users as [TestUser, TestUser, TestUser, TestUser]
		for (const user of users) await follow(user, room.id)
		const set = (user: TestUser, noti_state: number) =>
			api('PUT', '/chatroom/settings', {
				token: user.token,
				body: { chatroom_id: room.id, noti_state },
			})
		await set(mentions, 2)
		await set(polls, 3)
		await api('PUT', '/chatroom/mute', {
			token: muted.token,
			body: { chatroom_id: room.id, value: true },
		})
		const base = {
			chatroomId: room.id,
			authorId: s.cm.id,
			taggedUserIds: [],
			repliedToUserId: null,
		}
		const names = async (facts: Partial<Parameters<typeof recipientsOf>[2]>) =>
			(await recipientsOf(sql, s.community.communityId, { ...base, state: 0, ...facts })).map(
				(r) => [r.uuid, r.reason],
			)

		expect(await names({})).toEqual([[all.uuid, 'message']])
		expect(await names({ state: 10 })).toEqual([
			[all.uuid, 'poll'],
			[polls.uuid, 'poll'],
		])
		expect(await names({ taggedUserIds: [mentions.id, muted.id] })).toEqual([
			[all.uuid, 'message'],
			[mentions.uuid, 'tagged'],
		])
		expect(await names({ repliedToUserId: polls.id, authorId: all.id })).toEqual([
			[s.cm.uuid, 'message'],
			[polls.uuid, 'replied'],
		])
	})
})
