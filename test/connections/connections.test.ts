import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connectionPath, enableConnections } from '../support/connections'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('connections')
	await enableConnections(community)
})

const request = (
	from: TestUser,
	to: TestUser,
	body: Record<string, unknown> = { connection_type: 'two_way' },
) => api('POST', connectionPath(to), { token: from.token, body })
const answer = (receiver: TestUser, requester: TestUser, action: string) =>
	api('PATCH', connectionPath(requester), {
		token: receiver.token,
		body: { action, connection_type: 'two_way' },
	})
const list = (viewer: TestUser, member: TestUser, status: string) =>
	api('GET', `${connectionPath(member)}?status=${status}&page=1&page_size=10`, {
		token: viewer.token,
	})

async function rows(a: TestUser, b: TestUser) {
	const found = await sql`
		select u1.uuid::text as follower, u2.uuid::text as followed, c.connection_type from connections c
		join users u1 on u1.community_id = c.community_id and u1.id = c.user_id
		join users u2 on u2.community_id = c.community_id and u2.id = c.connection_id
		where c.user_id in (${a.id}, ${b.id}) and c.connection_id in (${a.id}, ${b.id})
		order by u1.uuid = ${a.uuid} desc`
	return found.map((r) => ({ ...r }))
}

describe('feature gate', () => {
	test('every connection call answers 400 with the exact message while user_connection is off', async () => {
		const off = await newCommunity('connections-off')
		const [a, b] = [await newUser(off), await newUser(off)]
		const expected = {
			success: false,
			error_message: 'Enable User Connection Setting to use this api',
		}
		const post = await request(a, b)
		expect(post.status).toBe(400)
		expect(post.body).toEqual(expected)
		const patch = await answer(b, a, 'accept')
		expect(patch.status).toBe(400)
		expect(patch.body).toEqual(expected)
		const get = await list(a, a, 'accepted')
		expect(get.status).toBe(400)
		expect(get.body).toEqual(expected)
		await enableConnections(off)
		expect((await request(a, b)).status).toBe(200)
		await enableConnections(off, false)
		expect((await request(b, a)).body).toEqual(expected)
	})
})

describe('two_way', () => {
	test('request → pending → receiver accepts → two Connection records', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		const sent = await request(a, b)
		expect(sent.status).toBe(200)
		expect(sent.body).toMatchObject({
			success: true,
			error_message: null,
			data: { status: 'pending' },
		})
		expect(await rows(a, b)).toEqual([])

		const pending = await list(b, b, 'pending')
		expect(pending.status).toBe(200)
		expect(pending.body.data.connections).toHaveLength(1)
		expect(pending.body.data.connections[0]).toMatchObject({
			user1_uuid: a.uuid,
			user2_uuid: b.uuid,
			status: 'pending',
		})
		expect(pending.body.data.users[a.uuid]).toMatchObject({
			name: a.name,
			uuid: a.uuid,
			image_url: '',
		})

		const accepted = await answer(b, a, 'accept')
		expect(accepted.status).toBe(200)
		expect(accepted.body.success).toBe(true)
		expect(await rows(a, b)).toEqual([
			{ follower: a.uuid, followed: b.uuid, connection_type: 'two_way' },
			{ follower: b.uuid, followed: a.uuid, connection_type: 'two_way' },
		])
		expect((await list(b, b, 'pending')).body.data.connections).toEqual([])
		const ofA = await list(a, a, 'accepted')
		expect(ofA.body.data.connections).toHaveLength(1)
		expect(ofA.body.data.connections[0]).toMatchObject({
			user1_uuid: a.uuid,
			user2_uuid: b.uuid,
			status: 'accepted',
		})
		expect(Object.keys(ofA.body.data.users).sort()).toEqual([a.uuid, b.uuid].sort())
		expect(ofA.body.data.total_count).toBe(1)
	})

	test('a request can be accepted once; accepting a missing request fails', async () => {
		const [a, b, c] = [await newUser(community), await newUser(community), await newUser(community)]
		await request(a, b)
		const both = await Promise.all([answer(b, a, 'accept'), answer(b, a, 'accept')])
		expect(both.map((r) => r.status).sort()).toEqual([200, 404])
		expect(both.filter((r) => r.body.success === false)).toHaveLength(1)
		const none = await answer(c, a, 'accept')
		expect(none.status).toBe(404)
		expect(none.body.success).toBe(false)
	})

	test('only the receiver may accept', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		await request(a, b)
		const self = await answer(a, b, 'accept')
		expect(self.status).toBe(403)
		expect(self.body.success).toBe(false)
		expect(await rows(a, b)).toEqual([])
	})

	test('duplicate requests and requests to a connected member are refused', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		expect((await request(a, b)).status).toBe(200)
		const again = await request(a, b)
		expect(again.status).toBe(409)
		expect(again.body.success).toBe(false)
		const reverse = await request(b, a)
		expect(reverse.status).toBe(409)
		await answer(b, a, 'accept')
		const connected = await request(a, b)
		expect(connected.status).toBe(409)
		expect(connected.body.success).toBe(false)
	})

	test('auto-accept skips the pending state', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		const reply = await request(a, b, {
			connection_type: 'two_way',
			connection_request_auto_accepted: true,
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.status).toBe('accepted')
		expect(await rows(a, b)).toHaveLength(2)
		expect((await list(b, b, 'pending')).body.data.connections).toEqual([])
	})
})

describe('one_way', () => {
	test('accepting creates one record: the requester follows the target', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		await request(a, b, { connection_type: 'one_way' })
		expect((await answer(b, a, 'accept')).status).toBe(200)
		expect(await rows(a, b)).toEqual([
			{ follower: a.uuid, followed: b.uuid, connection_type: 'one_way' },
		])
		// Listed for both: the follower and the followed.
		const ofB = await list(b, b, 'accepted')
		expect(ofB.body.data.connections).toHaveLength(1)
		expect(ofB.body.data.connections[0]).toMatchObject({
			user1_uuid: a.uuid,
			user2_uuid: b.uuid,
			connection_type: 'one_way',
		})
	})

	test('auto-accepted one_way creates one record', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		await request(a, b, { connection_type: 'one_way', connection_request_auto_accepted: true })
		expect(await rows(a, b)).toEqual([
			{ follower: a.uuid, followed: b.uuid, connection_type: 'one_way' },
		])
	})
})

describe('reject', () => {
	test('the receiver rejects a pending request: it is deleted', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		await request(a, b)
		const reply = await answer(b, a, 'reject')
		expect(reply.status).toBe(200)
		expect((await list(b, b, 'pending')).body.data.connections).toEqual([])
		expect(await rows(a, b)).toEqual([])
		// A new request is possible again.
		expect((await request(a, b)).status).toBe(200)
	})

	test('either side removes an existing connection', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		await request(a, b, { connection_type: 'two_way', connection_request_auto_accepted: true })
		expect((await answer(a, b, 'reject')).status).toBe(200)
		expect(await rows(a, b)).toEqual([])
		expect((await list(a, a, 'accepted')).body.data.connections).toEqual([])
	})

	test('rejecting when nothing exists is 404', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		const reply = await answer(a, b, 'reject')
		expect(reply.status).toBe(404)
		expect(reply.body.success).toBe(false)
	})
})

describe('bad input', () => {
	test('self-connection is 400', async () => {
		const a = await newUser(community)
		const reply = await request(a, a)
		expect(reply.status).toBe(400)
		expect(reply.body.success).toBe(false)
		expect((await answer(a, a, 'accept')).status).toBe(400)
	})

	test('unknown member uuid is 404', async () => {
		const a = await newUser(community)
		const other = await newCommunity('connections-other')
		await enableConnections(other)
		const stranger = await newUser(other)
		for (const path of [
			'/community/member/2b1d7f3e-0000-4000-8000-000000000000/connection',
			'/community/member/nope/connection',
			connectionPath(stranger),
		]) {
			const reply = await api('POST', path, {
				token: a.token,
				body: { connection_type: 'two_way' },
			})
			expect(reply.status).toBe(404)
			expect(reply.body.success).toBe(false)
		}
	})

	test('invalid connection_type, action and status are 400', async () => {
		const [a, b] = [await newUser(community), await newUser(community)]
		const type = await request(a, b, { connection_type: 'three_way' })
		expect(type.status).toBe(400)
		expect(type.body.error_message).toContain('connection_type')
		expect((await request(a, b, {})).status).toBe(400)
		const action = await answer(b, a, 'maybe')
		expect(action.status).toBe(400)
		expect(action.body.error_message).toContain('action')
		const status = await list(a, a, 'blocked')
		expect(status.status).toBe(400)
		expect(status.body.error_message).toContain('status')
	})

	test('pending requests are visible only to the member and CMs', async () => {
		const [a, b, c] = [await newUser(community), await newUser(community), await newUser(community)]
		const cm = await newUser(community, { role: 'cm' })
		await request(a, b)
		const other = await list(c, b, 'pending')
		expect(other.status).toBe(403)
		expect(other.body.success).toBe(false)
		const byCm = await list(cm, b, 'pending')
		expect(byCm.status).toBe(200)
		expect(byCm.body.data.connections).toHaveLength(1)
		expect((await list(a, a, 'pending')).body.data.connections[0]).toMatchObject({
			user1_uuid: a.uuid,
			user2_uuid: b.uuid,
		})
		// Accepted lists are public within the community.
		expect((await list(c, b, 'accepted')).status).toBe(200)
	})

	test('paging the accepted list', async () => {
		const hub = await newUser(community)
		const friends = await Promise.all([1, 2, 3].map(() => newUser(community)))
		for (const f of friends)
			await request(hub, f, { connection_type: 'two_way', connection_request_auto_accepted: true })
		const page1 = await api('GET', `${connectionPath(hub)}?status=accepted&page=1&page_size=2`, {
			token: hub.token,
		})
		const page2 = await api('GET', `${connectionPath(hub)}?status=accepted&page=2&page_size=2`, {
			token: hub.token,
		})
		expect(page1.body.data.connections).toHaveLength(2)
		expect(page2.body.data.connections).toHaveLength(1)
		expect(page2.body.data.total_count).toBe(3)
		const seen = [...page1.body.data.connections, ...page2.body.data.connections].map(
			(c: any) => c.user2_uuid,
		)
		expect(seen.sort()).toEqual(friends.map((f) => f.uuid).sort())
	})
})
