// New conversations are pushed to room participants by the chat module's seam
// (not muted; noti_state 1 all, 2 tagged or replied) and told to notifications.chat
// webhooks; the author never hears of their own message.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { tag } from '../support/content'
import { sql } from '../support/db'
import { type FakeFcm, startFakeFcm } from '../support/fake-fcm'
import { api } from '../support/http'
import { pushStatuses, registerDevice, storeCredentials } from '../support/push'
import { waitFor } from '../support/wait'
import { register } from '../support/webhooks'

let fake: FakeFcm
let stopEngine: () => Promise<void>

beforeAll(() => {
	fake = startFakeFcm()
	stopEngine = startPush({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })
})

afterAll(async () => {
	await stopEngine()
	fake.stop()
})

test('a message pushes to participants by noti_state and mute, once per device', async () => {
	const community = await newCommunity('chat-push')
	await storeCredentials(community, fake)
	const cm = await newUser(community, { role: 'cm', name: 'Host' })
	const users = await Promise.all(
		['All', 'Mentions', 'Muted', 'Author'].map((name) => newUser(community, { name })),
	)
	const [all, mentions, muted, author] = users as [TestUser, TestUser, TestUser, TestUser]
	const room = await newRoom(cm, { title: 'Lobby' })
	for (const user of users) {
		await follow(user, room.id)
		await registerDevice(user, `dev-${user.uuid}`, `tok-${user.name}`)
	}
	await api('PUT', '/chatroom/settings', {
		token: mentions.token,
		body: { chatroom_id: room.id, noti_state: 2 },
	})
	await api('PUT', '/chatroom/mute', {
		token: muted.token,
		body: { chatroom_id: room.id, value: true },
	})

	// notifications.chat events are recorded only for a community with such a webhook.
	await register({ community, cm }, 'http://127.0.0.1:9/chat', 'notifications.chat')

	const first = await say(author, room.id, 'hello room')
	await waitFor(() => fake.to('tok-All').length === 1, { what: 'the push to All' })
	const [message] = fake.to('tok-All')
	expect(message.data.title).toBe('Lobby')
	expect(message.data.sub_title).toBe('Author: hello room')
	expect(message.data.category).toBe('chat_message')
	expect(message.data.route).toContain(`collabcard_id=${room.id}`)

	// Tagging "Mentions" reaches them despite noti_state 2; the muted one still hears nothing.
	await say(author, room.id, `look ${tag(mentions)} ${tag(muted)}`)
	await waitFor(() => fake.to('tok-Mentions').length === 1, { what: 'the tagged push' })
	expect(fake.to('tok-Mentions')[0].data.category).toBe('chat_tagged')
	await waitFor(async () => {
		const s = await pushStatuses(community)
		return !s.pending && !s.sending
	})
	expect(fake.to('tok-All')).toHaveLength(2)
	expect(fake.to('tok-Muted')).toHaveLength(0)
	expect(fake.to('tok-Author')).toHaveLength(0)

	const [event] = await sql`
		select data from events where community_id = ${community.communityId} and event = 'notifications.chat'
		order by created_at, id limit 1`
	// The room's creator is seated too (noti_state 1), without a device.
	expect(event.data.uuids.sort()).toEqual([all.uniqueId, cm.uniqueId].sort())
	expect(event.data).toMatchObject({ current_page: 1, total_pages: 1 })
	expect(event.data.notification_payload.sub_title).toBe('Author: hello room')
	expect(first.id).toBeDefined()
})
