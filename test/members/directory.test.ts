// The member routes the SDKs read (DESIGN §17): the directory GET /community/member,
// profiles, the caller's state, a member's chatrooms as the caller may see them, and
// the community's questions.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let alice: TestUser
let bob: TestUser

beforeAll(async () => {
	community = await newCommunity('directory')
	cm = await newUser(community, { role: 'cm', name: 'Carol CM' })
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
})

const get = (user: TestUser, path: string) => api('GET', path, { token: user.token })
const names = (members: { name: string }[]) => members.map((m) => m.name)

describe('GET /community/member', () => {
	test('pages active members by name with the counts the SDKs read; the owner is not listed', async () => {
		const reply = await get(alice, '/community/member?page=1')
		expect(reply.status).toBe(200)
		const data = reply.body.data
		expect(names(data.members)).toEqual(['Alice', 'Bob', 'Carol CM'])
		expect(data).toMatchObject({
			admins_count: 1,
			total_members: 3,
			total_only_members: 2,
			total_filtered_members: 3,
			members_count: 3,
			pending_members_count: 0,
			community: { id: community.communityId },
		})
		expect(data.members[0]).toMatchObject({ uuid: alice.uuid, state: 4, id: alice.id })
		expect(data.members[2].state).toBe(1)
		const second = await get(alice, '/community/member?page=2&page_size=2')
		expect(names(second.body.data.members)).toEqual(['Carol CM'])
	})

	test("filters: member_state 1 and 4, a name, chat-js's 'undefined' values ignored", async () => {
		const cms = await get(bob, '/community/member?member_state=1&page=1')
		expect(names(cms.body.data.members)).toEqual(['Carol CM'])
		expect(cms.body.data.total_filtered_members).toBe(1)
		const members = await get(bob, '/community/member?member_state=4&page=1')
		expect(names(members.body.data.members)).toEqual(['Alice', 'Bob'])
		const loose = await get(
			bob,
			`/community/member?community_id=${community.communityId}&member_state=undefined&chatroom_id=undefined&page=1`,
		)
		expect(loose.body.data.members).toHaveLength(3)
		const search = await get(bob, '/community/member?search=ali')
		expect(names(search.body.data.members)).toEqual(['Alice'])
	})

	test('chatroom_id: members seated in a room the caller may see; a secret room unseen is 404', async () => {
		const room = await newRoom(cm)
		await follow(alice, room.id)
		const seated = await get(bob, `/community/member?chatroom_id=${room.id}&page=1`)
		expect(seated.status).toBe(200)
		expect(names(seated.body.data.members)).toEqual(['Alice', 'Carol CM'])
		const secret = await newRoom(cm, { is_secret: true })
		expect((await get(bob, `/community/member?chatroom_id=${secret.id}`)).status).toBe(404)
		expect((await get(cm, `/community/member?chatroom_id=${secret.id}`)).status).toBe(200)
	})

	test('bad input is 400 naming the field; another community is 404; no token 401', async () => {
		const state = await get(bob, '/community/member?member_state=7')
		expect(state.status).toBe(400)
		expect(state.body.error_message).toMatch(/member_state/)
		expect((await get(bob, '/community/member?page=0')).status).toBe(400)
		const other = await newCommunity('directory-other')
		expect((await get(bob, `/community/member?community_id=${other.communityId}`)).status).toBe(404)
		expect((await api('GET', '/community/member')).status).toBe(401)
	})

	test('nothing of another community is listed', async () => {
		const other = await newCommunity('directory-far')
		const stranger = await newUser(other, { name: 'Alien' })
		const mine = await get(alice, '/community/member?page_size=100')
		expect(names(mine.body.data.members)).not.toContain('Alien')
		const theirs = await get(stranger, '/community/member')
		expect(names(theirs.body.data.members)).toEqual(['Alien'])
	})
})

describe('GET|PUT /community/member/profile', () => {
	test('edit own name, image and custom fields; others read them by id or uuid', async () => {
		const dave = await newUser(community, { name: 'Dave' })
		const edit = await api('PUT', '/community/member/profile', {
			token: dave.token,
			body: {
				user_name: 'David',
				user_unique_id: dave.uniqueId,
				image_url: 'https://img.example/d.png',
				custom_fields: { city: 'Lisbon', age: 41 },
			},
		})
		expect(edit.status).toBe(200)
		expect(edit.body.data.member).toMatchObject({
			name: 'David',
			image_url: 'https://img.example/d.png',
			custom_fields: { city: 'Lisbon', age: 41 },
		})
		const byId = await get(alice, `/community/member/profile?user_id=${dave.id}`)
		expect(byId.body.data.member).toMatchObject({ uuid: dave.uuid, name: 'David' })
		expect(byId.body.data.member.custom_fields).toEqual({ city: 'Lisbon', age: 41 })
		expect(byId.body.data.member.status).toBeUndefined()
		const byUuid = await get(alice, `/community/member/profile?uuid=${dave.uuid}`)
		expect(byUuid.body.data.member.name).toBe('David')
		// A null removes one field; the others stay.
		await api('PUT', '/community/member/profile', {
			token: dave.token,
			body: { custom_fields: { age: null } },
		})
		const own = await get(dave, '/community/member/profile')
		expect(own.body.data.member.custom_fields).toEqual({ city: 'Lisbon' })
		// The new name shows where the member's posts show it.
		const posted = await api('POST', '/feed/post', { token: dave.token, body: { text: 'x' } })
		expect(posted.body.data.users[dave.uuid].name).toBe('David')
	})

	test("another member's profile cannot be edited; bad input is 400; unknown members 404", async () => {
		const mine = await api('PUT', '/community/member/profile', {
			token: alice.token,
			body: { user_name: 'Bobby', user_unique_id: bob.uniqueId },
		})
		expect(mine.status).toBe(403)
		expect(
			(await get(alice, `/community/member/profile?uuid=${bob.uuid}`)).body.data.member.name,
		).toBe('Bob')
		const empty = await api('PUT', '/community/member/profile', { token: alice.token, body: {} })
		expect(empty.status).toBe(400)
		const blank = await api('PUT', '/community/member/profile', {
			token: alice.token,
			body: { user_name: '  ' },
		})
		expect(blank.status).toBe(400)
		expect(blank.body.error_message).toMatch(/user_name/)
		const tooMany = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`f${i}`, 'v']))
		const fields = await api('PUT', '/community/member/profile', {
			token: alice.token,
			body: { custom_fields: tooMany },
		})
		expect(fields.status).toBe(400)
		expect(fields.body.error_message).toMatch(/custom_fields/)
		const stranger = await newUser(await newCommunity('profile-other'))
		expect((await get(alice, `/community/member/profile?user_id=${stranger.id}`)).status).toBe(404)
		expect((await get(alice, `/community/member/profile?uuid=${stranger.uuid}`)).status).toBe(404)
	})
})

describe('a member id past 32 bits', () => {
	test('user_id finds a member whose id has more than ten digits; an id past 2^53 is no one (4xx)', async () => {
		const wide = await newCommunity('profile-wide-ids')
		const viewer = await newUser(wide, { name: 'Viewer' })
		// The users sequence hands out ten-digit ids in the tests: this member's id is wider,
		// as an installation's ids become (bigint, migration 0200).
		const id = 12_345_678_901_234
		const [row] = await sql`
			insert into users (id, uuid, community_id, user_unique_id, name)
			values (${id}::int8, gen_random_uuid(), ${wide.communityId}, 'wide-id', 'Wide')
			returning uuid`
		const found = await get(viewer, `/community/member/profile?user_id=${id}`)
		expect(found.status).toBe(200)
		expect(found.body.data.member).toMatchObject({ uuid: row?.uuid, name: 'Wide' })
		const past = await get(viewer, '/community/member/profile?user_id=9007199254740993')
		expect(past.status).toBeGreaterThanOrEqual(400)
		expect(past.status).toBeLessThan(500)
		expect((await get(viewer, `/community/member/profile?user_id=${id + 1}`)).status).toBe(404)
	})
})

describe('GET /community/member/state', () => {
	test('the caller as a member with their rights; a CM is state 1', async () => {
		const reply = await get(alice, '/community/member/state')
		expect(reply.status).toBe(200)
		expect(reply.body.data).toMatchObject({
			state: 4,
			edit_required: false,
			member: { uuid: alice.uuid, state: 4 },
		})
		expect(reply.body.data.member_rights.length).toBeGreaterThan(0)
		expect(typeof reply.body.data.created_at).toBe('string')
		expect((await get(cm, '/community/member/state')).body.data.state).toBe(1)
	})
})

describe('GET /community/member/chatroom', () => {
	test("a member's rooms, only those the caller may see", async () => {
		const erin = await newUser(community, { name: 'Erin' })
		const open = await newRoom(cm, { title: 'Open' })
		const secret = await newRoom(cm, { title: 'Secret', is_secret: true, uuids: [erin.uuid] })
		await newRoom(cm, { title: 'Not hers' })
		await follow(erin, open.id)
		const titles = async (viewer: TestUser) => {
			const reply = await get(
				viewer,
				`/community/member/chatroom?user_id=${erin.id}&state=1&page=1`,
			)
			expect(reply.status).toBe(200)
			return reply.body.data.chatrooms.map((room: { title: string }) => room.title).sort()
		}
		expect(await titles(erin)).toEqual(['Open', 'Secret'])
		expect(await titles(cm)).toEqual(['Open', 'Secret'])
		// Positive control above: the secret room is hers; Bob, not seated, does not see it.
		expect(await titles(bob)).toEqual(['Open'])
		expect((await get(bob, `/community/member/chatroom?user_id=${secret.id}999`)).status).toBe(404)
	})
})

describe('GET /community/questions', () => {
	test('plaza keeps no community questions: an empty list', async () => {
		const reply = await get(alice, '/community/questions')
		expect(reply.status).toBe(200)
		expect(reply.body.data).toEqual({ questions: [] })
		expect((await api('GET', '/community/questions')).status).toBe(401)
	})
})
