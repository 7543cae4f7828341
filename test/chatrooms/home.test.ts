// The chat home (GET /chatroom/sync, GET /chatroom/home) and explore (GET /community/feed)
// through HTTP: followed rooms only, latest message first, by the room types asked, with
// the last message in conversation_meta; explore lists what the member may see (a secret
// room only for its members) in the order asked.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { api } from '../support/http'

let cm: TestUser
let member: TestUser
let insider: TestUser
let quiet: { id: string }
let busy: { id: string }
let news: { id: string }

beforeAll(async () => {
	const community = await newCommunity()
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community, { name: 'Member' })
	insider = await newUser(community, { name: 'Insider' })
	quiet = await newRoom(cm, { title: 'Quiet' })
	busy = await newRoom(cm, { title: 'Busy' })
	news = await newRoom(cm, { title: 'News', type: 7 })
	await newRoom(cm, { title: 'Secret', is_secret: true, uuids: [insider.uuid] })
	await newRoom(cm, { title: 'Unfollowed' })
	for (const room of [quiet, busy, news]) await follow(member, room.id)
	await say(member, quiet.id, 'first')
	await say(cm, news.id, 'announcement')
	await say(member, busy.id, 'hello')
	await say(cm, busy.id, 'latest of all')
})

async function home(user: TestUser, query = '', path = '/chatroom/sync') {
	const reply = await api('GET', `${path}?page=1&page_size=10${query}`, { token: user.token })
	expect(reply.status).toBe(200)
	return reply.body.data
}

describe('chat home', () => {
	test('followed rooms, latest message first, the last message beside each', async () => {
		const data = await home(member)
		expect(data.chatrooms_data.map((r: { title: string }) => r.title)).toEqual([
			'Busy',
			'News',
			'Quiet',
		])
		const last = data.chatrooms_data[0].last_conversation_id
		expect(data.conversation_meta[last].answer).toBe('latest of all')
		expect(Object.values(data.user_meta).map((u: any) => u.name)).toContain(
			data.conversation_meta[last].member.name,
		)
		expect(Object.keys(data.community_meta)).toHaveLength(1)
		// /chatroom/home is the same home
		const same = await home(member, '', '/chatroom/home')
		expect(same.chatrooms_data.map((r: { id: string }) => r.id)).toEqual(
			data.chatrooms_data.map((r: { id: string }) => r.id),
		)
	})

	test('chatroom_types keeps the types asked (comma list or JSON array); "undefined" is every type', async () => {
		const titles = async (q: string) =>
			(await home(member, q)).chatrooms_data.map((r: { title: string }) => r.title)
		expect(await titles('&chatroom_types=7')).toEqual(['News'])
		expect(await titles('&chatroom_types=[0]')).toEqual(['Busy', 'Quiet'])
		expect(await titles('&chatroom_types=0,7')).toEqual(['Busy', 'News', 'Quiet'])
		expect(
			await titles('&chatroom_types=undefined&max_timestamp=undefined&min_timestamp=undefined'),
		).toHaveLength(3)
		expect(await titles('&chatroom_types=10')).toEqual([])
		const bad = await api('GET', '/chatroom/sync?chatroom_types=x', { token: member.token })
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain('chatroom_types')
	})

	test('paging, and a secret room in the home only of its members', async () => {
		expect(
			(await home(member, '&page_size=1')).chatrooms_data.map((r: { title: string }) => r.title),
		).toEqual(['Busy'])
		expect((await home(insider)).chatrooms_data.map((r: { title: string }) => r.title)).toEqual([
			'Secret',
		])
	})
})

describe('explore', () => {
	test('rooms the member may see, in the order asked; the secret room only for its member', async () => {
		const explore = async (user: TestUser, order: number) => {
			const reply = await api('GET', `/community/feed?order_type=${order}&page=1`, {
				token: user.token,
			})
			expect(reply.status).toBe(200)
			expect(reply.body.data.pinned_chatrooms_count).toBe(0)
			return reply.body.data.chatrooms.map((r: { title: string }) => r.title)
		}
		expect(await explore(member, 0)).toEqual(['Unfollowed', 'News', 'Busy', 'Quiet'])
		expect(await explore(insider, 0)).toEqual(['Unfollowed', 'Secret', 'News', 'Busy', 'Quiet'])
		expect((await explore(member, 1))[0]).toBe('Busy')
		expect((await explore(member, 2))[0]).toBe('Busy')
		expect(
			(await api('GET', '/community/feed?order_type=99', { token: member.token })).status,
		).toBe(400)
	})
})
