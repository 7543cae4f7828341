// Cohort CRUD and membership (CM/owner): create from uuids or member ids, unknown
// uuids refused with nothing created, list, read with paged members, rename and
// replace, remove a member, delete.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { api } from '../support/http'
import { newCohort } from './support'

let cm: TestUser
let ana: TestUser
let ben: TestUser
let cid: TestUser

beforeAll(async () => {
	const community = await newCommunity('cohorts')
	cm = await newUser(community, { role: 'cm' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
	cid = await newUser(community, { name: 'Cid' })
})

const list = async () =>
	(await api('GET', '/community/cohort?page_size=100', { token: cm.token })).body.data
const read = (id: number | string, query = '') =>
	api('GET', `/community/cohort/${id}${query}`, { token: cm.token })

describe('cohorts', () => {
	test('create answers cohort_data with an integer id; list and read show it', async () => {
		const reply = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'Founders', uuids: [ana.uuid, ben.uuid] },
		})
		expect(reply.status).toBe(200)
		const data = reply.body.data.cohort_data
		expect(Number.isInteger(data.cohort_id)).toBe(true)
		expect(data).toMatchObject({
			name: 'Founders',
			total_members: 2,
			community_id: expect.any(Number),
		})
		const listed = await list()
		expect(listed.cohorts).toContainEqual({
			cohort_id: data.cohort_id,
			name: 'Founders',
			total_members: 2,
		})
		const one = await read(data.cohort_id)
		expect(one.status).toBe(200)
		expect(one.body.data.cohort).toMatchObject({
			cohort_id: data.cohort_id,
			name: 'Founders',
			total_members: 2,
		})
		expect(one.body.data.cohort.members.map((m: { uuid: string }) => m.uuid).sort()).toEqual(
			[ana.uuid, ben.uuid].sort(),
		)
		expect(one.body.data.cohort.members[0]).toMatchObject({ state: 4, id: expect.any(String) })
		const paged = await read(data.cohort_id, '?page=2&page_size=1')
		expect(paged.body.data.cohort.members.length).toBe(1)
		expect(paged.body.data.cohort.total_members).toBe(2)
	})

	test('member_ids work like uuids', async () => {
		const reply = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'By id', member_ids: [String(cid.id), ana.id] },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.cohort_data.total_members).toBe(2)
	})

	test('unknown uuids are a 400 naming them, and nothing is created', async () => {
		const before = (await list()).total_count
		const ghost = crypto.randomUUID()
		const reply = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'Ghosts', uuids: [ana.uuid, ghost, 'not-a-uuid'] },
		})
		expect(reply.status).toBe(400)
		expect(reply.body.error_message).toBe(`Unknown uuids: ${ghost}, not-a-uuid`)
		const foreign = await newUser(await newCommunity('cohorts-foreign'))
		const other = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'Foreign', uuids: [foreign.uuid] },
		})
		expect(other.status).toBe(400)
		const byId = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'Foreign', member_ids: [foreign.id] },
		})
		expect(byId.body.error_message).toBe(`Unknown member_ids: ${foreign.id}`)
		expect((await list()).total_count).toBe(before)
	})

	test('members may not manage cohorts; bad input is 400, unknown ids 404', async () => {
		const member = await api('POST', '/community/cohort', {
			token: ana.token,
			body: { name: 'Mine', uuids: [ana.uuid] },
		})
		expect(member.status).toBe(403)
		expect((await api('GET', '/community/cohort', { token: ana.token })).status).toBe(403)
		const noName = await api('POST', '/community/cohort', { token: cm.token, body: { uuids: [] } })
		expect(noName.status).toBe(400)
		expect((await read(999999)).status).toBe(404)
		expect((await read('abc')).status).toBe(404)
		const foreignCm = await newUser(await newCommunity('cohorts-other'), { role: 'cm' })
		const mine = await newCohort(cm, [ana])
		expect(
			(await api('GET', `/community/cohort/${mine.cohort_id}`, { token: foreignCm.token })).status,
		).toBe(404)
	})

	test('cohort ids past 32 bits are ids: unknown ones are 404 wherever named, past 2^53 a 4xx', async () => {
		// the test's cohorts are numbered past 2^32 (test/support/preload.ts)
		expect((await newCohort(cm, [ana])).cohort_id).toBeGreaterThan(2 ** 32)
		const as = (method: string, path: string, body: object) =>
			api(method, path, { token: cm.token, body })
		for (const id of [2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER]) {
			expect((await read(id)).status).toBe(404)
			expect((await as('PUT', '/community/cohort', { cohort_id: id, name: 'N' })).status).toBe(404)
			expect((await as('DELETE', '/community/cohort', { cohort_id: id })).status).toBe(404)
			const member = { cohort_id: id, uuid: ana.uuid }
			expect((await as('DELETE', '/community/cohort/member', member)).status).toBe(404)
		}
		// past 2^53 no number names it exactly: not found, or refused as input
		expect((await read('9007199254740993')).status).toBe(404)
		for (const reply of [
			await read('123456789012345678901'),
			await as('DELETE', '/community/cohort', { cohort_id: 2 ** 53 + 2 }),
		]) {
			expect(reply.status).toBeGreaterThanOrEqual(400)
			expect(reply.status).toBeLessThan(500)
		}
	})

	test('update renames and replaces members; remove one member; delete', async () => {
		const cohort = await newCohort(cm, [ana, ben], 'Old')
		const renamed = await api('PUT', '/community/cohort', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, name: 'New' },
		})
		expect(renamed.body.data.cohort_data).toMatchObject({ name: 'New', total_members: 2 })
		const replaced = await api('PUT', '/community/cohort', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, uuids: [ben.uuid, cid.uuid] },
		})
		expect(replaced.body.data.cohort_data.total_members).toBe(2)
		const members = (await read(cohort.cohort_id)).body.data.cohort.members.map(
			(m: { uuid: string }) => m.uuid,
		)
		expect(members.sort()).toEqual([ben.uuid, cid.uuid].sort())

		const removed = await api('DELETE', '/community/cohort/member', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, uuid: ben.uuid },
		})
		expect(removed.status).toBe(200)
		expect(removed.body.data.cohort_data.total_members).toBe(1)
		const again = await api('DELETE', '/community/cohort/member', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, uuid: ben.uuid },
		})
		expect(again.status).toBe(404)

		const deleted = await api('DELETE', '/community/cohort', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id },
		})
		expect(deleted.status).toBe(200)
		expect((await read(cohort.cohort_id)).status).toBe(404)
		const twice = await api('DELETE', '/community/cohort', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id },
		})
		expect(twice.status).toBe(404)
	})
})
