// GET /chatroom/search and GET /conversation/search through HTTP: titles and messages
// of rooms the searcher may read. A secret room is invisible to a non-member (no
// result, no count, a 404 when named), beside the member who finds it.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { block } from '../support/connections'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser
let insider: TestUser
let open: { id: string }
let secret: { id: string }
let other: { id: string }

async function rooms(user: TestUser, search: string, extra = '') {
	const reply = await api(
		'GET',
		`/chatroom/search?search=${encodeURIComponent(search)}&search_type=name&page=1&page_size=10${extra}`,
		{
			token: user.token,
		},
	)
	expect(reply.status).toBe(200)
	return (reply.body.data.chatrooms as { id: string; title: string }[]).map((r) => r.title)
}

async function messages(user: TestUser, search: string, extra = '') {
	const reply = await api(
		'GET',
		`/conversation/search?search=${encodeURIComponent(search)}&page=1&page_size=20${extra}`,
		{
			token: user.token,
		},
	)
	expect(reply.status).toBe(200)
	return (reply.body.data.conversations as { answer: string }[]).map((c) => c.answer)
}

beforeAll(async () => {
	community = await newCommunity()
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community, { name: 'Member' })
	insider = await newUser(community, { name: 'Insider' })
	open = await newRoom(cm, { title: 'Gardening club', header: 'tomatoes and roses' })
	other = await newRoom(cm, { title: 'Garage sales' })
	secret = await newRoom(cm, { title: 'Gardening secrets', is_secret: true, uuids: [insider.uuid] })
	await follow(member, open.id)
	await say(member, open.id, 'my tomatoes are ripening')
	await say(cm, other.id, 'tomatoes for sale, cheap')
	await say(insider, secret.id, 'secret tomatoes recipe')
})

describe('chatroom search', () => {
	test('by title words and header, the last word unfinished; a secret room only for who may see it', async () => {
		expect(await rooms(member, 'garden')).toEqual(['Gardening club'])
		// equal matches: the newer room first
		expect(await rooms(member, 'gar')).toEqual(['Garage sales', 'Gardening club'])
		expect(await rooms(member, 'roses')).toEqual(['Gardening club'])
		// positive controls: a seated member and a CM find the secret room
		expect((await rooms(insider, 'garden')).sort()).toEqual(['Gardening club', 'Gardening secrets'])
		expect(await rooms(cm, 'secrets')).toEqual(['Gardening secrets'])
		expect(await rooms(member, 'secrets')).toEqual([])
	})

	test('follow_status=true keeps the rooms the member follows', async () => {
		expect(await rooms(member, 'gar', '&follow_status=true')).toEqual(['Gardening club'])
		expect((await rooms(member, 'gar', '&follow_status=false')).length).toBe(2)
	})

	test('nothing typed finds nothing; bad input is a 400', async () => {
		expect(await rooms(member, '')).toEqual([])
		expect(await rooms(member, '¿?')).toEqual([])
		const long = await api('GET', `/chatroom/search?search=${'a'.repeat(201)}`, {
			token: member.token,
		})
		expect(long.status).toBe(400)
		expect(long.body.error_message).toContain('search')
	})
})

describe('conversation search', () => {
	test('messages of every readable room, newest first; the secret room only for its members', async () => {
		expect(await messages(member, 'tomatoes')).toEqual([
			'tomatoes for sale, cheap',
			'my tomatoes are ripening',
		])
		expect(await messages(insider, 'tomat')).toEqual([
			'secret tomatoes recipe',
			'tomatoes for sale, cheap',
			'my tomatoes are ripening',
		])
		expect(await messages(member, 'recipe')).toEqual([])
		expect(await messages(insider, 'recipe')).toEqual(['secret tomatoes recipe'])
	})

	test('one room by chatroom_id; a secret one named by a non-member is a 404', async () => {
		expect(await messages(member, 'tomatoes', `&chatroom_id=${open.id}`)).toEqual([
			'my tomatoes are ripening',
		])
		expect(await messages(insider, 'tomatoes', `&chatroom_id=${secret.id}`)).toEqual([
			'secret tomatoes recipe',
		])
		const named = await api(
			'GET',
			`/conversation/search?search=tomatoes&chatroom_id=${secret.id}`,
			{ token: member.token },
		)
		expect(named.status).toBe(404)
		// the chat-js request writes an unset chatroom_id as "undefined"
		expect((await messages(member, 'tomatoes', '&chatroom_id=undefined')).length).toBe(2)
		expect(await messages(member, 'tomatoes', '&follow_status=true')).toEqual([
			'my tomatoes are ripening',
		])
	})

	test('deleted messages and blocked authors (either way) are left out', async () => {
		const gone = await say(member, open.id, 'zucchini surplus')
		const kept = await say(cm, open.id, 'zucchini bread')
		expect((await messages(insider, 'zucchini')).length).toBe(2)
		const deleted = await api('DELETE', '/conversation', {
			token: member.token,
			body: { conversation_ids: [gone.id] },
		})
		expect(deleted.status).toBe(200)
		expect(await messages(insider, 'zucchini')).toEqual(['zucchini bread'])
		expect(await messages(cm, 'recipe')).toEqual(['secret tomatoes recipe'])
		// the insider blocks the CM: neither finds the other's messages any more
		await block(community, insider, cm)
		expect(await messages(insider, 'zucchini')).toEqual([])
		expect(await messages(cm, 'recipe')).toEqual([])
		// a member outside the block still finds the CM's message
		expect(await messages(member, 'zucchini')).toEqual(['zucchini bread'])
		expect(kept.id).toBeDefined()
	})
})
