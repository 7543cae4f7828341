// Direct messages through the HTTP API: one room per pair (also under 64 concurrent
// creates), privacy of the room, requests with the 24-h cool-down, the per-day limit,
// blocks, leaving, the community switch, the DM tab and feed, notifications and mute.
import { beforeAll, describe, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import { newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { waitFor } from '../support/wait'
import { register } from '../support/webhooks'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser
let cal: TestUser

beforeAll(async () => {
	community = await newCommunity('dms')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
	cal = await newUser(community, { name: 'Cal' })
})

const dm = (from: TestUser, to: TestUser, by: 'member_id' | 'uuid' = 'member_id') =>
	api('POST', '/chatroom/dm/create', {
		token: from.token,
		body: by === 'uuid' ? { uuid: to.uuid } : { member_id: to.id },
	})

const post = (user: TestUser, chatroomId: string, text: string) =>
	api('POST', '/conversation', { token: user.token, body: { chatroom_id: chatroomId, text } })

async function roomOf(from: TestUser, to: TestUser): Promise<string> {
	const reply = await dm(from, to)
	expect(reply.status).toBe(200)
	return reply.body.data.chatroom.id
}

describe('find or create', () => {
	test('one type-10 room per pair, whoever asks and however the member is named', async () => {
		const first = await dm(ana, ben)
		expect(first.status).toBe(200)
		const room = first.body.data.chatroom
		expect(room).toMatchObject({
			type: 10,
			is_secret: true,
			follow_status: true,
			participants_count: 2,
			chat_request_state: null,
			member_can_message: true,
		})
		expect(room.chatroom_with_user).toMatchObject({ id: String(ben.id), uuid: ben.uuid })
		const back = await dm(ben, ana, 'uuid')
		expect(back.body.data.chatroom.id).toBe(room.id)
		expect(back.body.data.chatroom.chatroom_with_user.uuid).toBe(ana.uuid)
		expect((await dm(ana, ana)).status).toBe(400)
		expect((await api('POST', '/chatroom/dm/create', { token: ana.token, body: {} })).status).toBe(
			400,
		)
		expect((await dm(ana, { ...ben, id: 99999999 })).status).toBe(404)
	})

	test('64 concurrent create-or-find calls for one pair make exactly one room', async () => {
		const x = await newUser(community, { name: 'Xia' })
		const y = await newUser(community, { name: 'Yan' })
		const replies = await Promise.all(
			Array.from({ length: 64 }, (_, i) => (i % 2 ? dm(x, y) : dm(y, x, 'uuid'))),
		)
		expect(replies.map((r) => r.status)).toEqual(Array(64).fill(200))
		const ids = new Set(replies.map((r) => r.body.data.chatroom.id))
		expect(ids.size).toBe(1)
		const [count] = await sql`
			select count(*)::int as n from chatrooms where community_id = ${community.communityId}
				and type = 10 and title in ('Xia <> Yan', 'Yan <> Xia')`
		expect(count?.n).toBe(1)
		const feed = await api('GET', '/community/dm/feed', { token: x.token })
		expect(feed.body.data.chatrooms_data.map((c: any) => c.id)).toEqual([...ids])
	})

	test('the room is private to the two: others, CMs included, get 404; lists skip it', async () => {
		const id = await roomOf(ana, ben)
		expect((await post(ana, id, 'hi Ben')).status).toBe(200)
		const asBen = await api('GET', `/conversation?chatroom_id=${id}`, { token: ben.token })
		expect(asBen.body.data.conversations.map((c: any) => c.answer)).toContain('hi Ben')
		for (const outsider of [cal, cm]) {
			expect(
				(await api('GET', `/chatroom?chatroom_id=${id}`, { token: outsider.token })).status,
			).toBe(404)
			expect(
				(await api('GET', `/conversation?chatroom_id=${id}`, { token: outsider.token })).status,
			).toBe(404)
			expect((await post(outsider, id, 'let me in')).status).toBe(404)
		}
		const open = await newRoom(cm, { title: 'Open' })
		const listed = await api('GET', '/chatroom?page_size=100', { token: cm.token })
		const listedIds = listed.body.data.chatrooms.map((c: any) => c.id)
		expect(listedIds).toContain(open.id)
		expect(listedIds).not.toContain(id)
	})

	test("no list of rooms shows a CM the DMs of others: explore, search, a member's rooms; the two still see it", async () => {
		const [dee, eve] = await Promise.all([
			newUser(community, { name: 'Dee' }),
			newUser(community, { name: 'Eve' }),
		])
		const id = await roomOf(dee, eve)
		expect((await post(dee, id, 'pineapple secrets')).status).toBe(200)
		const roomIds = async (user: TestUser, path: string) => {
			const reply = await api('GET', path, { token: user.token })
			expect(reply.status).toBe(200)
			return (reply.body.data.chatrooms as { id: string }[]).map((r) => r.id)
		}
		const answers = async (user: TestUser) => {
			const reply = await api('GET', '/conversation/search?search=pineapple&page=1&page_size=20', {
				token: user.token,
			})
			expect(reply.status).toBe(200)
			return (reply.body.data.conversations as { answer: string }[]).map((c) => c.answer)
		}
		const explore = '/community/feed?order_type=0&page=1'
		const ofDee = `/community/member/chatroom?uuid=${dee.uuid}&page=1&page_size=50`
		// Positive control: the two members find their DM in each list.
		expect(await roomIds(dee, explore)).toContain(id)
		expect(await roomIds(eve, ofDee)).toContain(id)
		expect(await answers(eve)).toEqual(['pineapple secrets'])
		// A CM outside it finds it in none.
		expect(await roomIds(cm, explore)).not.toContain(id)
		expect(await roomIds(cm, ofDee)).not.toContain(id)
		expect(await answers(cm)).toEqual([])
	})

	test("a CM's DM stays private from other CMs after its page is cached in Redis", async () => {
		const other = await newUser(community, { role: 'cm', name: 'Otto' })
		const id = await roomOf(cm, ana)
		await post(ana, id, 'for Cleo only')
		// the CM participant's read teaches Redis the room and caches the newest page
		for (let i = 0; i < 2; i++) {
			const own = await api('GET', `/conversation?chatroom_id=${id}`, { token: cm.token })
			expect(own.body.data.conversations.map((c: any) => c.answer)).toContain('for Cleo only')
		}
		const peek = await api('GET', `/conversation?chatroom_id=${id}`, { token: other.token })
		expect(peek.status).toBe(404)
	})
})

describe('the DM tab, status and feed', () => {
	test('unread DMs count until read; the feed shows the last conversation', async () => {
		const d = await newUser(community, { name: 'Dee' })
		const id = await roomOf(ana, d)
		await post(ana, id, 'one')
		await post(ana, id, 'two')
		const meta = await api('GET', '/home/dm/meta', { token: d.token })
		expect(meta.body.data).toMatchObject({ hide_dm_tab: false, is_cm: false, unread_dm_count: 2 })
		const feed = await api('GET', '/community/dm/feed?page=1&page_size=10', { token: d.token })
		const [room] = feed.body.data.chatrooms_data
		expect(room).toMatchObject({ id, unread_messages: 2, chatroom_with_user: { uuid: ana.uuid } })
		expect(feed.body.data.conversation_meta[room.last_conversation_id].answer).toBe('two')
		expect(feed.body.data.user_meta[String(ana.id)].uuid).toBe(ana.uuid)
		await api('GET', `/conversation?chatroom_id=${id}`, { token: d.token })
		const after = await api('GET', '/home/dm/meta', { token: d.token })
		expect(after.body.data.unread_dm_count).toBe(0)
	})

	test('status names the existing room or the way to create one', async () => {
		const id = await roomOf(ana, ben)
		const withBen = await api('GET', `/community/dm/status?req_from=profile&uuid=${ben.uuid}`, {
			token: ana.token,
		})
		expect(withBen.body.data).toEqual({
			show_dm: true,
			cta: `route://chatroom_detail?chatroom_id=${id}`,
		})
		const withCal = await api('GET', `/community/dm/status?req_from=profile&member_id=${cal.id}`, {
			token: ana.token,
		})
		expect(withCal.body.data.cta).toBe(`route://create_dm?member_id=${cal.id}&uuid=${cal.uuid}`)
		const any = await api('GET', '/community/dm/status?req_from=dm_feed&member_id=undefined', {
			token: ana.token,
		})
		expect(any.body.data).toEqual({ show_dm: true, cta: 'route://dm_feed' })
	})
})

describe('community rules', () => {
	test('DMs off: members reach only CMs; CMs reach anyone', async () => {
		const c = await newCommunity('dms-off')
		const boss = await newUser(c, { role: 'cm', name: 'Boss' })
		const m1 = await newUser(c, { name: 'M1' })
		const m2 = await newUser(c, { name: 'M2' })
		const off = await api('PUT', '/community/dm/settings', {
			token: boss.token,
			body: { enabled: false },
		})
		expect(off.body.data).toMatchObject({ enabled: false })
		expect((await api('PUT', '/community/dm/settings', { token: m1.token, body: {} })).status).toBe(
			403,
		)
		const refused = await dm(m1, m2)
		expect(refused.status).toBe(403)
		expect((await dm(m1, boss)).status).toBe(200)
		expect((await dm(boss, m2)).status).toBe(200)
		const status = await api('GET', `/community/dm/status?req_from=x&uuid=${m2.uuid}`, {
			token: m1.token,
		})
		expect(status.body.data.show_dm).toBe(false)
		const toBoss = await api('GET', `/community/dm/status?req_from=x&uuid=${boss.uuid}`, {
			token: m1.token,
		})
		expect(toBoss.body.data.show_dm).toBe(true)
	})

	test('the per-day limit counts new DMs only; CMs are never counted', async () => {
		const c = await newCommunity('dms-limit')
		const boss = await newUser(c, { role: 'cm', name: 'Boss' })
		const [starter, p1, p2, p3] = await Promise.all(
			['S', 'P1', 'P2', 'P3'].map((name) => newUser(c, { name })),
		)
		await api('PUT', '/community/dm/settings', { token: boss.token, body: { daily_limit: 2 } })
		const before = await api('GET', `/chatroom/dm/limit?member_id=${p3?.id}`, {
			token: starter?.token,
		})
		expect(before.body.data).toEqual({
			is_request_dm_limit_exceeded: false,
			new_request_dm_timestamp: null,
			user_dm_limit: { state: 1, duration: 'day', number_in_duration: 2 },
			chatroom_id: null,
		})
		const s = starter as TestUser
		expect((await dm(s, p1 as TestUser)).status).toBe(200)
		expect((await dm(s, p2 as TestUser)).status).toBe(200)
		const third = await dm(s, p3 as TestUser)
		expect(third.status).toBe(429)
		expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(80_000)
		const limit = await api('GET', `/chatroom/dm/limit?uuid=${p3?.uuid}`, { token: s.token })
		expect(limit.body.data.is_request_dm_limit_exceeded).toBe(true)
		expect(limit.body.data.new_request_dm_timestamp).toBeGreaterThan(Date.now())
		// an existing DM is found, a CM is reached: neither counts
		expect((await dm(s, p1 as TestUser)).status).toBe(200)
		expect((await dm(s, boss)).status).toBe(200)
	})

	test('the limit holds under concurrent starts', async () => {
		const c = await newCommunity('dms-limit-race')
		const boss = await newUser(c, { role: 'cm', name: 'Boss' })
		await api('PUT', '/community/dm/settings', { token: boss.token, body: { daily_limit: 3 } })
		const s = await newUser(c, { name: 'S' })
		const others = await Promise.all(Array.from({ length: 10 }, () => newUser(c)))
		const replies = await Promise.all(others.map((o) => dm(s, o)))
		expect(replies.filter((r) => r.status === 200)).toHaveLength(3)
		expect(replies.filter((r) => r.status === 429)).toHaveLength(7)
	})
})

describe('requests', () => {
	test('a request carries the first message; accept opens the DM, reject cools down 24 h', async () => {
		const c = await newCommunity('dms-requests')
		const boss = await newUser(c, { role: 'cm', name: 'Boss' })
		const [asker, taker, refuser] = await Promise.all(
			['Asker', 'Taker', 'Refuser'].map((name) => newUser(c, { name })),
		)
		const a = asker as TestUser
		await api('PUT', '/community/dm/settings', {
			token: boss.token,
			body: { requests_required: true },
		})
		const created = await dm(a, taker as TestUser)
		const id = created.body.data.chatroom.id
		expect(created.body.data.chatroom).toMatchObject({
			chat_request_state: null,
			member_can_message: false,
		})
		expect((await post(a, id, 'skip the queue')).body.error_message).toContain('DM request first')
		const request = (state: number, user: TestUser, text?: string) =>
			api('POST', '/chatroom/dm/request', {
				token: user.token,
				body: { chatroom_id: id, chat_request_state: state, text },
			})
		const sent = await request(0, a, 'may I?')
		expect(sent.status).toBe(200)
		expect(sent.body.data.conversation.answer).toBe('may I?')
		expect((await post(a, id, 'again')).body.error_message).toBe('Your DM request is pending')
		expect((await post(taker as TestUser, id, 'hm')).status).toBe(403)
		expect((await request(1, a)).status).toBe(403)
		expect((await request(1, taker as TestUser)).status).toBe(200)
		expect((await post(a, id, 'thanks')).status).toBe(200)
		expect((await post(taker as TestUser, id, 'welcome')).status).toBe(200)
		expect((await request(2, taker as TestUser)).status).toBe(400)

		const other = (await dm(a, refuser as TestUser)).body.data.chatroom.id
		const ask = (user: TestUser, state: number) =>
			api('POST', '/chatroom/dm/request', {
				token: user.token,
				body: { chatroom_id: other, chat_request_state: state, text: 'hello?' },
			})
		expect((await ask(a, 0)).status).toBe(200)
		expect((await ask(refuser as TestUser, 2)).status).toBe(200)
		expect((await post(a, other, 'please')).body.error_message).toBe('The DM request was rejected')
		const again = await ask(a, 0)
		expect(again.status).toBe(429)
		expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(86_000)
		// after the cool-down the requester may ask again
		await sql`update dm_rooms set rejected_at = rejected_at - 86400001
			where community_id = ${c.communityId} and chatroom_id = ${other}`
		expect((await ask(a, 0)).status).toBe(200)
		// members of another room, and outsiders, cannot answer
		expect((await ask(boss, 1)).status).toBe(404)
	})
})

describe('what ends a DM', () => {
	test('a block from the DM is the same block; unblocking reopens it', async () => {
		const e = await newUser(community, { name: 'Eve' })
		const id = await roomOf(e, ben)
		expect((await post(ben, id, 'before')).status).toBe(200)
		const blocked = await api('POST', '/chatroom/dm/block', {
			token: e.token,
			body: { chatroom_id: id, status: 0 },
		})
		expect(blocked.status).toBe(200)
		expect(blocked.body.data).toMatchObject({ is_blocked: true })
		const list = await api('GET', `/user/${e.uuid}/block`, { token: e.token })
		expect(list.body.data.blockedUsers.map((u: any) => u.uuid)).toEqual([ben.uuid])
		expect((await post(ben, id, 'after')).status).toBe(403)
		expect((await post(e, id, 'after')).status).toBe(403)
		const feed = await api('GET', '/community/dm/feed', { token: ben.token })
		expect(feed.body.data.chatrooms_data.find((c: any) => c.id === id).member_can_message).toBe(
			false,
		)
		await api('POST', '/chatroom/dm/block', {
			token: e.token,
			body: { chatroom_id: id, status: 1 },
		})
		expect((await post(ben, id, 'again')).status).toBe(200)
		expect(
			(
				await api('POST', '/chatroom/dm/block', {
					token: cal.token,
					body: { chatroom_id: id, status: 0 },
				})
			).status,
		).toBe(404)
	})

	test('leaving ends it for the other; creating it again seats the leaver', async () => {
		const f = await newUser(community, { name: 'Fay' })
		const id = await roomOf(f, ben)
		const left = await api('DELETE', '/chatroom/participants', {
			token: f.token,
			body: { chatroom_id: id },
		})
		expect(left.status).toBe(200)
		const refused = await post(ben, id, 'anyone?')
		expect(refused.status).toBe(403)
		expect(refused.body.error_message).toBe('This conversation has ended')
		expect((await post(f, id, 'me')).status).toBe(404)
		expect(await roomOf(f, ben)).toBe(id)
		expect((await post(ben, id, 'welcome back')).status).toBe(200)
	})
})

describe('notifications', () => {
	test('a DM notifies the other member unless they muted it', async () => {
		const c = await newCommunity('dms-notify')
		const [g, h] = await Promise.all(['Gus', 'Hal'].map((name) => newUser(c, { name })))
		const gus = g as TestUser
		const hal = h as TestUser
		// notifications.chat is recorded for a community with such a webhook, by the
		// worker that resolves a message's recipients after its commit (docs/chat.md).
		const cm = await newUser(c, { role: 'cm' })
		await register({ community: c, cm }, 'http://127.0.0.1:9/chat', 'notifications.chat')
		const stopPush = startPush({ pollMs: 20 })
		const told = async (text: string) => {
			await say(gus, id, text)
			await waitFor(
				async () =>
					(await sql`select 1 from chat_notices where community_id = ${c.communityId}`).length ===
					0,
				{ what: `the notice of ${text}` },
			)
		}
		const id = (await dm(gus, hal)).body.data.chatroom.id
		await told('ping')
		await api('PUT', '/chatroom/mute', { token: hal.token, body: { chatroom_id: id, value: true } })
		await told('muted ping')
		await api('PUT', '/chatroom/mute', {
			token: hal.token,
			body: { chatroom_id: id, value: false },
		})
		await told('pong')
		await stopPush()
		const events = await sql`
			select data from events where community_id = ${c.communityId} and event = 'notifications.chat'
			order by created_at, id`
		const lines = events.map((e) => e.data.notification_payload.sub_title)
		expect(lines).toEqual(['Gus: ping', 'Gus: pong'])
		for (const e of events) expect(e.data.uuids).toEqual([hal.uniqueId])
	})
})
