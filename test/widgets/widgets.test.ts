import { beforeAll, describe, expect, test } from 'bun:test'
import { resolveCompanyWidget } from '../../src/modules/widgets/service'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let other: TestCommunity
let owner: TestUser
let stranger: TestUser
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('widgets')
	other = await newCommunity('widgets-other')
	owner = await newUser(community, { name: 'Company Owner' })
	stranger = await newUser(community)
	cm = await newUser(community, { role: 'cm' })
})

const company = (id: string) => ({
	company_id: id,
	company_name: `Co ${id}`,
	company_image_url: 'https://x/y.png',
})

describe('POST /widget', () => {
	test('creates a company widget in the spec shape', async () => {
		const reply = await api('POST', '/widget', {
			token: owner.token,
			body: { metadata: company('acme'), parent_entity_type: 'post' },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.success).toBe(true)
		const widget = reply.body.data.widget
		expect(widget._id).toMatch(/^[0-9a-f]{24}$/)
		expect(widget).toMatchObject({
			parent_entity_type: 'post',
			parent_entity_id: '',
			meta: null,
			metadata: company('acme'),
		})
		expect(widget.created_at).toBeNumber()
		expect(widget.updated_at).toBe(widget.created_at)
	})

	test('a second widget for the same company is 409; other communities are independent', async () => {
		await api('POST', '/widget', { token: owner.token, body: { metadata: company('dup') } })
		const again = await api('POST', '/widget', {
			token: stranger.token,
			body: { metadata: company('dup') },
		})
		expect(again.status).toBe(409)
		expect(again.body.success).toBe(false)
		const elsewhere = await newUser(other)
		expect(
			(await api('POST', '/widget', { token: elsewhere.token, body: { metadata: company('dup') } }))
				.status,
		).toBe(200)
	})

	test('bad bodies are 400 and no token is 401', async () => {
		expect(
			(await api('POST', '/widget', { token: owner.token, body: { metadata: 'x' } })).status,
		).toBe(400)
		expect(
			(
				await api('POST', '/widget', {
					token: owner.token,
					body: { metadata: { company_id: { a: 1 } } },
				})
			).status,
		).toBe(400)
		expect((await api('POST', '/widget', { body: { metadata: company('z') } })).status).toBe(401)
	})
})

describe('PUT /widget/:widget_id', () => {
	test('the creator edits, merging metadata; a stranger is 403; a CM may', async () => {
		const created = await api('POST', '/widget', {
			token: owner.token,
			body: { metadata: company('edit-me') },
		})
		const id = created.body.data.widget._id
		const edit = await api('PUT', `/widget/${id}`, {
			token: owner.token,
			body: { metadata: { company_name: 'Renamed' }, meta: { k: 1 } },
		})
		expect(edit.status).toBe(200)
		expect(edit.body.data.widget.metadata).toMatchObject({
			company_id: 'edit-me',
			company_name: 'Renamed',
		})
		expect(edit.body.data.widget.meta).toEqual({ k: 1 })
		expect(
			(await api('PUT', `/widget/${id}`, { token: stranger.token, body: { meta: null } })).status,
		).toBe(403)
		expect(
			(await api('PUT', `/widget/${id}`, { token: cm.token, body: { parent_entity_type: 'post' } }))
				.status,
		).toBe(200)
	})

	test('moving to a taken company_id is 409; unknown and foreign ids are 404', async () => {
		await api('POST', '/widget', { token: owner.token, body: { metadata: company('taken') } })
		const mine = await api('POST', '/widget', {
			token: owner.token,
			body: { metadata: company('free') },
		})
		const id = mine.body.data.widget._id
		expect(
			(
				await api('PUT', `/widget/${id}`, {
					token: owner.token,
					body: { metadata: { company_id: 'taken' } },
				})
			).status,
		).toBe(409)
		expect(
			(await api('PUT', '/widget/0123456789abcdef01234567', { token: owner.token, body: {} }))
				.status,
		).toBe(404)
		const foreign = await newUser(other, { role: 'cm' })
		expect((await api('PUT', `/widget/${id}`, { token: foreign.token, body: {} })).status).toBe(404)
	})
})

describe('GET /widget', () => {
	test('finds the company widget only with the literal double quotes', async () => {
		const created = await api('POST', '/widget', {
			token: owner.token,
			body: { metadata: company('q-co') },
		})
		const quoted = await api(
			'GET',
			`/widget?search_key=${encodeURIComponent('"metadata.company_id"')}&search_value=${encodeURIComponent('"q-co"')}`,
			{ token: stranger.token },
		)
		expect(quoted.status).toBe(200)
		expect(quoted.body.data.widgets).toHaveLength(1)
		expect(quoted.body.data.widgets[0]._id).toBe(created.body.data.widget._id)

		const bare = await api('GET', '/widget?search_key=metadata.company_id&search_value=q-co', {
			token: stranger.token,
		})
		expect(bare.status).toBe(400)
		expect(bare.body.success).toBe(false)
		const halfQuoted = await api(
			'GET',
			`/widget?search_key=${encodeURIComponent('"metadata.company_id"')}&search_value=q-co`,
			{ token: stranger.token },
		)
		expect(halfQuoted.status).toBe(400)
		const alone = await api(
			'GET',
			`/widget?search_key=${encodeURIComponent('"metadata.company_id"')}`,
			{ token: stranger.token },
		)
		expect(alone.status).toBe(400)
		const badKey = await api(
			'GET',
			`/widget?search_key=${encodeURIComponent('"metadata.a b"')}&search_value=%22x%22`,
			{ token: stranger.token },
		)
		expect(badKey.status).toBe(400)
	})

	test('no match is an empty list; another community never sees the widget', async () => {
		const none = await api(
			'GET',
			`/widget?search_key=%22metadata.company_id%22&search_value=%22nobody%22`,
			{ token: owner.token },
		)
		expect(none.body.data.widgets).toEqual([])
		const foreign = await newUser(other)
		const hidden = await api(
			'GET',
			`/widget?search_key=%22metadata.company_id%22&search_value=%22q-co%22`,
			{ token: foreign.token },
		)
		expect(hidden.body.data.widgets).toEqual([])
	})
})

describe('GET /widget paging', () => {
	test('total_count is the real total on every page, also past the last one', async () => {
		const own = await newCommunity('widgets-paging')
		const member = await newUser(own)
		for (const id of ['p-1', 'p-2', 'p-3'])
			await api('POST', '/widget', { token: member.token, body: { metadata: company(id) } })
		const page = async (n: number) =>
			(await api('GET', `/widget?page=${n}&page_size=2`, { token: member.token })).body.data
		const first = await page(1)
		expect(first.widgets).toHaveLength(2)
		expect(first.total_count).toBe(3)
		const last = await page(2)
		expect(last.widgets).toHaveLength(1)
		expect(last.total_count).toBe(3)
		const beyond = await page(3)
		expect(beyond.widgets).toEqual([])
		expect(beyond.total_count).toBe(3)
	})
})

describe('resolveCompanyWidget (attachment type 5)', () => {
	test('creates from company fields, reuses by company_id and by entity_id', async () => {
		const first = await sql.begin((tx) =>
			resolveCompanyWidget(tx, community.communityId, company('attach'), {
				id: 'p1',
				type: 'post',
			}),
		)
		expect(first.metadata).toMatchObject(company('attach'))
		expect(first.parent_entity_type).toBe('post')
		const again = await sql.begin((tx) =>
			resolveCompanyWidget(tx, community.communityId, company('attach')),
		)
		expect(again.id).toBe(first.id)
		const byId = await sql.begin((tx) =>
			resolveCompanyWidget(tx, community.communityId, { entity_id: first.id }),
		)
		expect(byId.id).toBe(first.id)
	})

	test('concurrent creations of one company end with one widget', async () => {
		const results = await Promise.all(
			Array.from({ length: 8 }, () =>
				sql.begin((tx) => resolveCompanyWidget(tx, community.communityId, company('race'))),
			),
		)
		expect(new Set(results.map((w) => w.id)).size).toBe(1)
		const [{ count }] =
			await sql`select count(*)::int as count from widgets where community_id = ${community.communityId} and company_id = 'race'`
		expect(count).toBe(1)
	})

	test('unknown or foreign entity_id is 404, empty meta is 400', async () => {
		const foreign = await sql.begin((tx) =>
			resolveCompanyWidget(tx, other.communityId, company('foreign-co')),
		)
		await expect(
			sql.begin((tx) => resolveCompanyWidget(tx, community.communityId, { entity_id: foreign.id })),
		).rejects.toMatchObject({ status: 404 })
		await expect(
			sql.begin((tx) => resolveCompanyWidget(tx, community.communityId, {})),
		).rejects.toMatchObject({ status: 400 })
	})
})
