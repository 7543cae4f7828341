// Member search (GET /community/member/search) and the mention list (GET /community/tag)
// through HTTP: prefix, word prefix and typo matches; connections and CMs first in the
// mention list; blocked members, either way, never listed (beside a control that is).
import { beforeAll, describe, expect, test } from 'bun:test'
import { newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { block, connect, enableConnections } from '../support/connections'
import { api } from '../support/http'

let community: TestCommunity
let searcher: TestUser

async function members(user: TestUser, search: string) {
	const reply = await api(
		'GET',
		`/community/member/search?search=${encodeURIComponent(search)}&search_type=name&page=1&page_size=10`,
		{
			token: user.token,
		},
	)
	expect(reply.status).toBe(200)
	return (reply.body.data.members as { name: string; uuid: string; state: number }[]).map(
		(m) => m.name,
	)
}

async function mentions(user: TestUser, searchName: string, pageSize = 10) {
	const reply = await api(
		'GET',
		`/community/tag?page=1&page_size=${pageSize}&search_name=${encodeURIComponent(searchName)}`,
		{
			token: user.token,
		},
	)
	expect(reply.status).toBe(200)
	const data = reply.body.data
	expect(data.community_members.map((m: { uuid: string }) => m.uuid)).toEqual(
		data.members.map((m: { uuid: string }) => m.uuid),
	)
	return (data.members as { name: string }[]).map((m) => m.name)
}

beforeAll(async () => {
	community = await newCommunity()
	searcher = await newUser(community, { name: 'Searcher' })
	await newUser(community, { name: 'Margaret Thatcher' })
	await newUser(community, { name: 'Marguerite Duras' })
	await newUser(community, { name: 'Björn Borg' })
	await newUser(community, { name: 'Zed Zebra' })
})

describe('member search by name', () => {
	test('a prefix, a word prefix, an accent folded, a typo', async () => {
		expect(await members(searcher, 'Marg')).toEqual(['Margaret Thatcher', 'Marguerite Duras'])
		expect(await members(searcher, 'thatch')).toEqual(['Margaret Thatcher'])
		expect(await members(searcher, 'bjorn')).toEqual(['Björn Borg'])
		// one letter wrong
		expect(await members(searcher, 'margeret')).toContain('Margaret Thatcher')
		expect(await members(searcher, 'duraz')).toEqual(['Marguerite Duras'])
		expect(await members(searcher, 'qqqq')).toEqual([])
		// the searcher is not listed; a member is a chat member object
		expect(await members(searcher, 'searcher')).toEqual([])
		const reply = await api('GET', '/community/member/search?search=zed', { token: searcher.token })
		expect(reply.body.data.members[0]).toMatchObject({ name: 'Zed Zebra', state: 4 })
	})

	test('pages follow one order: name prefixes by name, then the nearest other names', async () => {
		const local = await newCommunity()
		const me = await newUser(local, { name: 'Me' })
		for (const name of ['Mara Cole', 'Anna Mara', 'Marabel Ito', 'Mara Ames', 'Tomara Li'])
			await newUser(local, { name })
		const page = async (n: number) => {
			const reply = await api('GET', `/community/member/search?search=mara&page=${n}&page_size=2`, {
				token: me.token,
			})
			expect(reply.status).toBe(200)
			return (reply.body.data.members as { name: string }[]).map((m) => m.name)
		}
		const all = [...(await page(1)), ...(await page(2)), ...(await page(3))]
		// the three names that start with "mara" first, by name; then a word that starts with it
		expect(all.slice(0, 4)).toEqual(['Mara Ames', 'Mara Cole', 'Marabel Ito', 'Anna Mara'])
		expect(new Set(all).size).toBe(all.length)
		expect(await members(me, 'mara')).toEqual(all)
	})

	test('LIKE wildcards are plain characters; bad input is a 400', async () => {
		expect(await members(searcher, '%')).toEqual([])
		expect(await members(searcher, '_arg')).toEqual([])
		const long = await api('GET', `/community/member/search?search=${'a'.repeat(201)}`, {
			token: searcher.token,
		})
		expect(long.status).toBe(400)
		expect(long.body.error_message).toContain('search')
		expect((await api('GET', '/community/member/search?search=a')).status).toBe(401)
	})
})

describe('the mention list', () => {
	test('connections and CMs first, then the rest by name; empty search lists everyone', async () => {
		const local = await newCommunity()
		const me = await newUser(local, { name: 'Me' })
		const alice = await newUser(local, { name: 'Alice Adams' })
		const amy = await newUser(local, { name: 'Amy Zwick' })
		await newUser(local, { name: 'Aaron Cm', role: 'cm' })
		await enableConnections(local)
		// without a connection: by name, the CM first
		expect(await mentions(me, 'a')).toEqual(['Aaron Cm', 'Alice Adams', 'Amy Zwick'])
		await connect(me, amy)
		expect(await mentions(me, 'a')).toEqual(['Aaron Cm', 'Amy Zwick', 'Alice Adams'])
		expect(await mentions(me, 'alice')).toEqual(['Alice Adams'])
		expect(await mentions(alice, 'a')).toEqual(['Aaron Cm', 'Amy Zwick'])
		// no search_name: everyone but the searcher (the enableConnections CM included)
		expect((await mentions(me, '', 100)).length).toBe(4)
	})

	test('pages run through connections and CMs, name prefixes, then typos, none twice', async () => {
		const local = await newCommunity()
		const me = await newUser(local, { name: 'Me' })
		await newUser(local, { name: 'Mara Cm', role: 'cm' })
		const friend = await newUser(local, { name: 'Zora Marlow' })
		await newUser(local, { name: 'Marla Adams' })
		await newUser(local, { name: 'Marlo Brown' })
		await newUser(local, { name: 'Amy Marlie' })
		await enableConnections(local)
		await connect(me, friend)
		const whole = await mentions(me, 'marl', 10)
		// the connection (a word prefix) and the CM (a close word) first, then the name
		// prefixes, then the word match
		expect(whole).toEqual(['Zora Marlow', 'Mara Cm', 'Marla Adams', 'Marlo Brown', 'Amy Marlie'])
		const paged: string[] = []
		for (let page = 1; page <= 6; page++) {
			const reply = await api('GET', `/community/tag?page=${page}&page_size=1&search_name=marl`, {
				token: me.token,
			})
			paged.push(...reply.body.data.members.map((m: { name: string }) => m.name))
		}
		expect(paged).toEqual(whole)
	})

	test('blocked members, either way, are never listed', async () => {
		const local = await newCommunity()
		const me = await newUser(local, { name: 'Me' })
		const blockedByMe = await newUser(local, { name: 'Walter Blocked' })
		const blockingMe = await newUser(local, { name: 'Wanda Blocking' })
		await newUser(local, { name: 'Wendy Control' })
		await block(local, me, blockedByMe)
		await block(local, blockingMe, me)
		expect(await mentions(me, 'w')).toEqual(['Wendy Control'])
		expect(await members(me, 'w')).toEqual(['Wendy Control'])
		expect(await mentions(me, '', 100)).toEqual(['Wendy Control'])
		// a member who blocked no one sees all three
		const other = await newUser(local, { name: 'Other' })
		expect(await mentions(other, 'w')).toEqual([
			'Walter Blocked',
			'Wanda Blocking',
			'Wendy Control',
		])
		expect(await members(blockedByMe, 'wanda')).toEqual(['Wanda Blocking'])
	})

	test('in a secret room the list holds its members; a room the searcher may not see is a 404', async () => {
		const local = await newCommunity()
		const cm = await newUser(local, { role: 'cm', name: 'Rhea Cm' })
		const inside = await newUser(local, { name: 'Rita Inside' })
		await newUser(local, { name: 'Rosa Outside' })
		const secret = await newRoom(cm, { title: 'Hidden', is_secret: true, uuids: [inside.uuid] })
		const open = await newRoom(cm, { title: 'Open' })
		const listed = async (user: TestUser, roomId: string) => {
			const reply = await api(
				'GET',
				`/community/tag?chatroom_id=${roomId}&search_name=r&page=1&page_size=10`,
				{
					token: user.token,
				},
			)
			expect(reply.status).toBe(200)
			return reply.body.data.members.map((m: { name: string }) => m.name)
		}
		expect(await listed(cm, secret.id)).toEqual(['Rita Inside'])
		expect(await listed(inside, secret.id)).toEqual(['Rhea Cm'])
		// an open room: everyone (the control)
		expect(await listed(inside, open.id)).toEqual(['Rhea Cm', 'Rosa Outside'])
		const outsider = await newUser(local, { name: 'Other' })
		const hidden = await api('GET', `/community/tag?chatroom_id=${secret.id}&search_name=r`, {
			token: outsider.token,
		})
		expect(hidden.status).toBe(404)
		expect(
			(
				await api('GET', '/community/tag?chatroom_id=undefined&search_name=rit', {
					token: outsider.token,
				})
			).status,
		).toBe(200)
	})
})
