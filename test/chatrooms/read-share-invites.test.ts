// The rest of chat through the HTTP API: mark_read with a body (JSON and form), seen in
// its three forms, share links for members, the room topic, invites to secret rooms
// and the chatbot list.
import { beforeAll, describe, expect, test } from 'bun:test'
import { config } from '../../src/config'
import { follow, newRoom, roomAs, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser

beforeAll(async () => {
	community = await newCommunity('chat-rest')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
})

const unread = async (user: TestUser, id: string) => (await roomAs(user, id)).unread_messages

describe('read and seen', () => {
	test('mark_read takes {chatroom_id} as JSON or as a form, beside the path form', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await say(cm, room.id, 'one')
		expect(await unread(ana, room.id)).toBe(1)
		const json = await api('POST', '/chatroom/mark_read', {
			token: ana.token,
			body: { chatroom_id: room.id },
		})
		expect(json.status).toBe(200)
		expect(json.body.data.unread_messages).toBe(0)
		expect(await unread(ana, room.id)).toBe(0)
		await say(cm, room.id, 'two')
		expect(await unread(ana, room.id)).toBe(1)
		const form = await api('POST', '/chatroom/mark_read', {
			token: ana.token,
			rawBody: `chatroom_id=${room.id}`,
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
		})
		expect(form.status).toBe(200)
		expect(await unread(ana, room.id)).toBe(0)
		const missing = await api('POST', '/chatroom/mark_read', { token: ana.token, body: {} })
		expect(missing.status).toBe(400)
		expect(missing.body.error_message).toContain('chatroom_id')
	})

	test('seen in the body, in the query, by member id or uuid; never for another member', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const forms = [
			{ q: '', body: { collabcard_id: Number(room.id), member_id: ana.id, collabcard_type: 1 } },
			{ q: `?collabcard_id=${room.id}&member_id=${ana.id}&collabcard_type=1`, body: {} },
			{ q: `?collabcard_id=${room.id}&uuid=${ana.uuid}&collabcard_type=undefined`, body: {} },
		]
		for (const form of forms) {
			await say(cm, room.id, 'news')
			expect(await unread(ana, room.id)).toBe(1)
			const reply = await api('PUT', `/chatroom/seen${form.q}`, {
				token: ana.token,
				body: form.body,
			})
			expect(reply.status).toBe(200)
			expect(await unread(ana, room.id)).toBe(0)
		}
		const other = await api('PUT', `/chatroom/seen?collabcard_id=${room.id}&uuid=${ana.uuid}`, {
			token: ben.token,
			body: {},
		})
		expect(other.status).toBe(403)
		// a viewer without a seat previews: nothing to mark, no error
		const preview = await api('PUT', `/chatroom/seen?collabcard_id=${room.id}`, {
			token: ben.token,
			body: {},
		})
		expect(preview.status).toBe(200)
		const secret = await newRoom(cm, { is_secret: true })
		expect(
			(
				await api('PUT', `/chatroom/seen?collabcard_id=${secret.id}`, {
					token: ben.token,
					body: {},
				})
			).status,
		).toBe(404)
	})
})

describe('share', () => {
	test('a member of an open room gets community_share; its link joins whoever may join', async () => {
		const room = await newRoom(cm, { title: 'Town hall' })
		await follow(ana, room.id)
		const reply = await api('GET', `/chatroom/share?chatroom_id=${room.id}&domain=example.com`, {
			token: ana.token,
		})
		expect(reply.status).toBe(200)
		const link = `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/collabcard/${room.id}`
		expect(reply.body.data.community_share).toMatchObject({
			public_link: link,
			private_link: link,
			public_link_text: `Join Town hall on chat-rest: ${link}`,
		})
		expect(reply.body.data.chatroom_share).toBeUndefined()
		const opened = await api('GET', `/collabcard/${room.id}`, { token: ben.token })
		expect(opened.status).toBe(200)
		expect((await roomAs(ben, room.id)).chatroom.follow_status).toBe(true)
	})

	test('secret rooms: no public link, unseen is 404, the link joins nobody without access', async () => {
		const room = await newRoom(cm, { is_secret: true })
		expect(
			(await api('GET', `/chatroom/share?chatroom_id=${room.id}`, { token: ana.token })).status,
		).toBe(404)
		const asCm = await api('GET', `/chatroom/share?chatroom_id=${room.id}`, { token: cm.token })
		expect(asCm.body.data.community_share.public_link).toBe('')
		expect(asCm.body.data.community_share.private_link).toContain(`/collabcard/${room.id}`)
		expect((await api('GET', `/collabcard/${room.id}`, { token: ana.token })).status).toBe(404)
	})

	test("a cohort link stays the CM's: members asking for one get 403", async () => {
		const room = await newRoom(cm, { is_secret: true })
		const cohort = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'Club', uuids: [ana.uuid] },
		})
		const cohortId = cohort.body.data.cohort_data.cohort_id
		await api('POST', '/chatroom/cohort', {
			token: cm.token,
			body: { chatroom_id: room.id, cohort_ids: [cohortId], add_existing_members: true },
		})
		const asCm = await api('GET', `/chatroom/share?chatroom_id=${room.id}&cohort_id=${cohortId}`, {
			token: cm.token,
		})
		expect(asCm.body.data.chatroom_share.share_url).toContain(`?cohort_id=${cohortId}`)
		expect(asCm.body.data.community_share).toBeDefined()
		const asAna = await api('GET', `/chatroom/share?chatroom_id=${room.id}&cohort_id=${cohortId}`, {
			token: ana.token,
		})
		expect(asAna.status).toBe(403)
		expect(
			(await api('GET', `/chatroom/share?chatroom_id=${room.id}`, { token: ana.token })).status,
		).toBe(200)
	})
})

describe('topic', () => {
	test('a CM pins a conversation of the room as its topic; members cannot; null clears', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const message = await say(ana, room.id, 'the rules')
		const set = (user: TestUser, conversationId: string | null, chatroomId = room.id) =>
			api('PUT', '/conversation/topic', {
				token: user.token,
				body: { chatroom_id: chatroomId, conversation_id: conversationId },
			})
		expect((await set(ana, message.id)).status).toBe(403)
		expect((await roomAs(ana, room.id)).chatroom.topic_id).toBeNull()
		const pinned = await set(cm, message.id)
		expect(pinned.status).toBe(200)
		expect(pinned.body.data.topic).toMatchObject({ id: message.id, answer: 'the rules' })
		expect((await roomAs(ana, room.id)).chatroom.topic_id).toBe(message.id)
		const elsewhere = await newRoom(cm)
		expect((await set(cm, message.id, elsewhere.id)).status).toBe(404)
		expect((await set(cm, null)).status).toBe(200)
		expect((await roomAs(ana, room.id)).chatroom.topic_id).toBeNull()
	})
})

describe('invites to secret rooms', () => {
	test('a CM invites; the member sees it, accepts and is seated; rejecting seats nobody', async () => {
		const room = await newRoom(cm, { title: 'Inner circle', is_secret: true })
		const cal = await newUser(community, { name: 'Cal' })
		const sent = await api('POST', '/chatroom/participants', {
			token: cm.token,
			body: { chatroom_id: room.id, is_secret: true, chatroom_participants: [ana.id, cal.uuid] },
		})
		expect(sent.status).toBe(200)
		expect(sent.body.data.invited_count).toBe(2)
		const byMember = await api('POST', '/chatroom/participants', {
			token: ana.token,
			body: { chatroom_id: room.id, chatroom_participants: [ben.id] },
		})
		expect(byMember.status).toBe(404)
		const unknown = await api('POST', '/chatroom/participants', {
			token: cm.token,
			body: { chatroom_id: room.id, chatroom_participants: [99999999] },
		})
		expect(unknown.status).toBe(400)

		const invites = await api('GET', '/channel/invites?channel_type=1&page=1&page_size=10', {
			token: ana.token,
		})
		expect(invites.body.data.total_count).toBe(1)
		expect(invites.body.data.user_invites[0]).toMatchObject({
			channel: { id: room.id, title: 'Inner circle' },
			invite_status: 0,
			invite_sender: { uuid: cm.uuid },
		})
		expect((await api('GET', '/channel/invites', { token: ben.token })).body.data.total_count).toBe(
			0,
		)
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: ana.token })).status,
		).toBe(404)
		const accepted = await api('PUT', '/channel/invite', {
			token: ana.token,
			body: { channel_id: room.id, invite_status: 1 },
		})
		expect(accepted.status).toBe(200)
		expect((await roomAs(ana, room.id)).chatroom.follow_status).toBe(true)
		expect((await say(ana, room.id, 'glad to be here')).answer).toBe('glad to be here')
		const again = await api('PUT', '/channel/invite', {
			token: ana.token,
			body: { channel_id: room.id, invite_status: 1 },
		})
		expect(again.status).toBe(404)

		const rejected = await api('PUT', '/channel/invite', {
			token: cal.token,
			body: { channel_id: room.id, invite_status: 2 },
		})
		expect(rejected.status).toBe(200)
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: cal.token })).status,
		).toBe(404)
		expect((await api('GET', '/channel/invites', { token: cal.token })).body.data.total_count).toBe(
			0,
		)
	})
	test('a number names a member id first, else a customer id (a phone number, say)', async () => {
		const room = await newRoom(cm, { title: 'By number', is_secret: true })
		const launched = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: '919876543210', user_name: 'Dev' },
		})
		expect(launched.status).toBe(200)
		const sent = await api('POST', '/chatroom/participants', {
			token: cm.token,
			body: { chatroom_id: room.id, chatroom_participants: ['919876543210', ben.id] },
		})
		expect(sent.status).toBe(200)
		expect(sent.body.data.invited_count).toBe(2)
		const invites = await api('GET', '/channel/invites', {
			token: launched.body.data.access_token,
		})
		expect(invites.body.data.total_count).toBe(1)
	})
})

describe('chatbots', () => {
	test('the list is empty, in the shape the SDK parses', async () => {
		const reply = await api('GET', '/community/chatbot?page=1&page_size=10', { token: ana.token })
		expect(reply.status).toBe(200)
		expect(reply.body.data).toEqual({ page: 1, total_pages: 0, total_chatbots: 0, users: [] })
		expect((await api('GET', '/community/chatbot')).status).toBe(401)
	})
})
