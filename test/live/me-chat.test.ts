// The `me` scope's chat events through a real WebSocket: a DM request reaches the
// receiver and its answer the requester; after the notice worker expanded new messages
// every other participant (muted ones too) gets the room's absolute unread count, once
// per room of a batch and at most once a second, the author and outsiders nothing;
// reading sends the reader 0.
import { afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import { follow, newRoom, roomAs, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { type Frame, type LiveSocket, liveServer, openSocket, subscribe } from '../support/live'
import { waitFor } from '../support/wait'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let bob: TestUser
let cal: TestUser
let dan: TestUser
let stopEngine: (() => Promise<void>) | null = null

beforeAll(async () => {
	liveServer()
	community = await newCommunity('live-me-chat')
	cm = await newUser(community, { role: 'cm', name: 'Cm' })
	;[ana, bob, cal, dan] = await Promise.all(
		['Ana', 'Bob', 'Cal', 'Dan'].map((name) => newUser(community, { name })),
	)
})

afterEach(async () => {
	await stopEngine?.()
	stopEngine = null
})

async function meOf(user: TestUser): Promise<LiveSocket> {
	const socket = await openSocket({ token: user.token })
	expect((await subscribe(socket, 'me')).type).toBe('subscribed')
	return socket
}

const eventsOf = (socket: LiveSocket, type: string): Frame[] =>
	socket.frames.filter((f) => f.type === 'event' && f.event.type === type).map((f) => f.event.data)

const unreadOf = (socket: LiveSocket, chatroomId: string) =>
	eventsOf(socket, 'chat.unread').filter((d) => d.chatroom_id === chatroomId)

const noticesLeft = async () =>
	(
		await sql`select count(*)::int as n from chat_notices where community_id = ${community.communityId}`
	)[0]?.n as number

/** Runs the notice worker until this community's notices are expanded. */
async function expandNotices() {
	stopEngine = startPush({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })
	await waitFor(async () => (await noticesLeft()) === 0, { what: 'notices expanded' })
}

describe('DM requests on me', () => {
	test('a request reaches the receiver, its acceptance or rejection the requester', async () => {
		const settings = await api('PUT', '/community/dm/settings', {
			token: cm.token,
			body: { requests_required: true },
		})
		expect(settings.status).toBe(200)
		const [anaMe, bobMe, calMe] = await Promise.all([meOf(ana), meOf(bob), meOf(cal)])
		const roomWith = async (to: TestUser) => {
			const reply = await api('POST', '/chatroom/dm/create', {
				token: ana.token,
				body: { member_id: to.id },
			})
			expect(reply.status).toBe(200)
			return reply.body.data.chatroom.id as string
		}
		const answer = (user: TestUser, chatroomId: string, state: number, text?: string) =>
			api('POST', '/chatroom/dm/request', {
				token: user.token,
				body: { chatroom_id: chatroomId, chat_request_state: state, text },
			})

		const withBob = await roomWith(bob)
		const sent = await answer(ana, withBob, 0, 'may I?')
		expect(sent.status).toBe(200)
		const request = await bobMe.next((f) => f.event?.type === 'dm.request', 'dm.request')
		expect(request.event.data).toEqual({
			chatroom_id: withBob,
			member_id: ana.id,
			uuid: ana.uuid,
			conversation_id: sent.body.data.conversation.id,
		})
		expect((await answer(bob, withBob, 1)).status).toBe(200)
		const accepted = await anaMe.next(
			(f) => f.event?.type === 'dm.request_answered',
			'dm.request_answered',
		)
		expect(accepted.event.data).toEqual({ chatroom_id: withBob, status: 1, member_id: bob.id })

		const withCal = await roomWith(cal)
		expect((await answer(ana, withCal, 0)).status).toBe(200)
		const bare = await calMe.next((f) => f.event?.type === 'dm.request', 'a request without text')
		expect(bare.event.data).toMatchObject({ chatroom_id: withCal, conversation_id: null })
		expect((await answer(cal, withCal, 2)).status).toBe(200)
		await anaMe.next(
			(f) => f.event?.type === 'dm.request_answered' && f.event.data.status === 2,
			'the rejection',
		)
		// a refused answer (nothing pending any more) tells nobody
		expect((await answer(cal, withCal, 1)).status).toBe(400)
		await Bun.sleep(200)
		expect(eventsOf(anaMe, 'dm.request')).toEqual([])
		expect(eventsOf(anaMe, 'dm.request_answered')).toHaveLength(2)
		expect(eventsOf(bobMe, 'dm.request_answered')).toEqual([])
		for (const s of [anaMe, bobMe, calMe]) s.close()
	})
})

describe('chat unread on me', () => {
	test('other participants get the absolute count once per room of a batch; author and outsider nothing', async () => {
		const room = (await newRoom(cm, { title: 'Three' })).id as string
		for (const user of [ana, bob, cal]) await follow(user, room)
		const muted = await api('PUT', '/chatroom/mute', {
			token: cal.token,
			body: { chatroom_id: room, value: true },
		})
		expect(muted.status).toBe(200)
		const [anaMe, bobMe, calMe, danMe] = await Promise.all([ana, bob, cal, dan].map(meOf))

		// no worker runs while the two messages commit: one batch expands both
		await say(ana, room, 'one')
		await say(ana, room, 'two')
		await expandNotices()
		await bobMe.next((f) => f.event?.data?.chatroom_id === room, 'bob: chat.unread')
		await calMe.next((f) => f.event?.data?.chatroom_id === room, 'cal (muted): chat.unread')
		await Bun.sleep(200)
		expect(unreadOf(bobMe, room)).toEqual([{ chatroom_id: room, unread_messages: 2 }])
		expect(unreadOf(calMe, room)).toEqual([{ chatroom_id: room, unread_messages: 2 }])
		expect(unreadOf(anaMe, room)).toEqual([])
		expect(eventsOf(danMe, 'chat.unread')).toEqual([])
		// the count is the one the REST room answer gives
		expect((await roomAs(bob, room)).unread_messages).toBe(2)

		// reading sends the reader's count, 0
		const read = await api('POST', `/chatroom/${room}/mark_read`, { token: bob.token })
		expect(read.status).toBe(200)
		const zero = await bobMe.next(
			(f) => f.event?.data?.chatroom_id === room && f.event.data.unread_messages === 0,
			'bob: 0 after reading',
		)
		expect(zero.event.type).toBe('chat.unread')
		// reading the newest page moves the mark too: from Postgres (cal, the first reader),
		// then from the page Redis keeps (ana: her own messages were behind her mark)
		for (const [user, socket] of [
			[cal, calMe],
			[ana, anaMe],
		] as const) {
			const page = await api('GET', `/conversation?chatroom_id=${room}&paginate_by=20`, {
				token: user.token,
			})
			expect(page.status).toBe(200)
			await socket.next(
				(f) => f.event?.data?.chatroom_id === room && f.event.data.unread_messages === 0,
				`${user.name}: 0 after reading the newest page`,
			)
		}
		for (const s of [anaMe, bobMe, calMe, danMe]) s.close()
	})

	test('messages of two authors in one batch: each author hears of the other', async () => {
		const room = (await newRoom(cm, { title: 'Two voices' })).id as string
		for (const user of [ana, bob, cal]) await follow(user, room)
		const [anaMe, bobMe, calMe] = await Promise.all([ana, bob, cal].map(meOf))
		await say(ana, room, 'hi')
		await say(bob, room, 'hello')
		await expandNotices()
		for (const [socket, count] of [
			[anaMe, 1],
			[bobMe, 1],
			[calMe, 2],
		] as const)
			await socket.next(
				(f) => f.event?.type === 'chat.unread' && f.event.data.chatroom_id === room,
				`count ${count}`,
			)
		await Bun.sleep(200)
		expect(unreadOf(anaMe, room)).toEqual([{ chatroom_id: room, unread_messages: 1 }])
		expect(unreadOf(bobMe, room)).toEqual([{ chatroom_id: room, unread_messages: 1 }])
		expect(unreadOf(calMe, room)).toEqual([{ chatroom_id: room, unread_messages: 2 }])
		for (const s of [anaMe, bobMe, calMe]) s.close()
	})

	test('a busy room: its count at once, then what came within the second once, at its end', async () => {
		const room = (await newRoom(cm, { title: 'Busy' })).id as string
		for (const user of [ana, bob]) await follow(user, room)
		const bobMe = await meOf(bob)
		stopEngine = startPush({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })
		await say(ana, room, 'first')
		const first = await bobMe.next((f) => f.event?.data?.chatroom_id === room, 'the first count')
		await say(ana, room, 'second')
		await say(ana, room, 'third')
		const last = await bobMe.next(
			(f) => f.event?.data?.chatroom_id === room && f.event.data.unread_messages === 3,
			'the count of the window',
		)
		expect(unreadOf(bobMe, room).map((d) => d.unread_messages)).toEqual([1, 3])
		expect(last.event.at - first.event.at).toBeGreaterThanOrEqual(900)
		bobMe.close()
	})

	test('a member who left the room hears nothing of it', async () => {
		const room = (await newRoom(cm, { title: 'Leavers' })).id as string
		for (const user of [ana, bob, cal]) await follow(user, room)
		await follow(bob, room, false)
		const [bobMe, calMe] = await Promise.all([meOf(bob), meOf(cal)])
		await say(ana, room, 'anyone?')
		await expandNotices()
		await calMe.next((f) => f.event?.data?.chatroom_id === room, 'cal, still seated, hears')
		await Bun.sleep(200)
		expect(unreadOf(bobMe, room)).toEqual([])
		for (const s of [bobMe, calMe]) s.close()
	})
})
