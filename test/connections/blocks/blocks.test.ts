import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../../support/community'
import { connectionPath, enableConnections } from '../../support/connections'
import { sql } from '../../support/db'
import { api } from '../../support/http'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('blocks')
	await enableConnections(community)
})

const block = (me: TestUser, body: Record<string, unknown>) =>
	api('PUT', `/user/${me.uuid}/block`, { token: me.token, body })
const blockedList = (me: TestUser, query = '') =>
	api('GET', `/user/${me.uuid}/block${query}`, { token: me.token })
const between = async (a: TestUser, b: TestUser) => {
	const [row] = await sql`
		select (select count(*)::int from connections where user_id in (${a.id}, ${b.id}) and connection_id in (${a.id}, ${b.id})) as connections,
			(select count(*)::int from connection_requests where request_by in (${a.id}, ${b.id}) and request_to in (${a.id}, ${b.id})) as requests`
	return { ...row }
}

describe('PUT|GET /user/:uuid/block', () => {
	test('blocks with shouldBlock, lists {uuid, name, imageUrl}, unblocks with should_block', async () => {
		const [me, other] = [
			await newUser(community, { name: 'Me' }),
			await newUser(community, { name: 'Other' }),
		]
		const put = await block(me, { uuid: other.uuid, shouldBlock: true })
		expect(put.status).toBe(200)
		expect(put.body).toMatchObject({ success: true, error_message: null })
		const listed = await blockedList(me, '?page=1&pageSize=10')
		expect(listed.status).toBe(200)
		expect(listed.body.data.blockedUsers).toEqual([
			{ uuid: other.uuid, name: 'Other', imageUrl: '' },
		])
		// Blocking twice is harmless.
		expect((await block(me, { uuid: other.uuid, should_block: true })).status).toBe(200)
		expect((await blockedList(me)).body.data.blockedUsers).toHaveLength(1)
		expect((await block(me, { uuid: other.uuid, should_block: false })).status).toBe(200)
		expect((await blockedList(me, '?page=1&page_size=10')).body.data.blockedUsers).toEqual([])
	})

	test('page size in both spellings', async () => {
		const me = await newUser(community)
		const others = await Promise.all([1, 2, 3].map(() => newUser(community)))
		for (const o of others) await block(me, { uuid: o.uuid, shouldBlock: true })
		expect((await blockedList(me, '?page=1&pageSize=2')).body.data.blockedUsers).toHaveLength(2)
		expect((await blockedList(me, '?page=2&page_size=2')).body.data.blockedUsers).toHaveLength(1)
		expect((await blockedList(me, '?page=1&pageSize=2')).body.data.total_count).toBe(3)
	})

	test('blocking removes connections and pending requests and refuses new requests both ways', async () => {
		const [a, b, c] = [await newUser(community), await newUser(community), await newUser(community)]
		await api('POST', connectionPath(b), {
			token: a.token,
			body: { connection_type: 'two_way', connection_request_auto_accepted: true },
		})
		await api('POST', connectionPath(c), { token: a.token, body: { connection_type: 'two_way' } })
		expect(await between(a, b)).toEqual({ connections: 2, requests: 0 })
		expect(await between(a, c)).toEqual({ connections: 0, requests: 1 })
		await block(b, { uuid: a.uuid, shouldBlock: true })
		await block(a, { uuid: c.uuid, shouldBlock: true })
		expect(await between(a, b)).toEqual({ connections: 0, requests: 0 })
		expect(await between(a, c)).toEqual({ connections: 0, requests: 0 })
		for (const [from, to] of [
			[a, b],
			[b, a],
			[a, c],
			[c, a],
		]) {
			const reply = await api('POST', connectionPath(to), {
				token: from.token,
				body: { connection_type: 'two_way' },
			})
			expect(reply.status).toBe(403)
			expect(reply.body.success).toBe(false)
		}
		await block(b, { uuid: a.uuid, shouldBlock: false })
		const again = await api('POST', connectionPath(b), {
			token: a.token,
			body: { connection_type: 'two_way' },
		})
		expect(again.status).toBe(200)
	})

	test('bad input: oneself 400, another caller 403, unknown user 404, missing flag 400', async () => {
		const [me, other] = [await newUser(community), await newUser(community)]
		const self = await block(me, { uuid: me.uuid, shouldBlock: true })
		expect(self.status).toBe(400)
		expect(self.body.success).toBe(false)
		const notMine = await api('PUT', `/user/${other.uuid}/block`, {
			token: me.token,
			body: { uuid: other.uuid, shouldBlock: true },
		})
		expect(notMine.status).toBe(403)
		expect((await api('GET', `/user/${other.uuid}/block`, { token: me.token })).status).toBe(403)
		const unknown = await block(me, {
			uuid: '2b1d7f3e-0000-4000-8000-000000000000',
			shouldBlock: true,
		})
		expect(unknown.status).toBe(404)
		expect((await block(me, { uuid: other.uuid })).status).toBe(400)
		expect((await block(me, { uuid: other.uuid, shouldBlock: 'yes' })).status).toBe(400)
	})
})
