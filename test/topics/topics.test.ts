import { beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../src/lib/ids'
import { linkTopics } from '../../src/modules/posts/repo'
import { findEnabledTopics } from '../../src/modules/topics/repo'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser

beforeAll(async () => {
	community = await newCommunity('topics')
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community)
})

const create = (body: unknown, token = cm.token) => api('POST', '/feed/topic', { token, body })
const list = (query: string, token = member.token) => api('GET', `/feed/topic?${query}`, { token })

describe('POST /feed/topic', () => {
	test('creates from names and topics together, at top level and under data', async () => {
		const reply = await create({
			names: ['Alpha', 'Beta'],
			topics: [
				{
					name: 'Gamma',
					priority: 2.5,
					is_searchable: 'false',
					is_enabled: false,
					metadata: { color: '#fff' },
				},
			],
		})
		expect(reply.status).toBe(200)
		expect(reply.body.success).toBe(true)
		expect(reply.body.topics.map((t: any) => t.name)).toEqual(['Alpha', 'Beta', 'Gamma'])
		expect(reply.body.data.topics).toEqual(reply.body.topics)
		const gamma = reply.body.topics[2]
		expect(gamma).toMatchObject({
			priority: 2.5,
			is_searchable: false,
			is_enabled: false,
			parent_id: '',
			level: 0,
			post_count: 0,
			metadata: { color: '#fff' },
		})
		expect(gamma.id).toMatch(/^[0-9a-f]{24}$/)
		expect(reply.body.topics[0]).toMatchObject({
			priority: 0,
			is_searchable: true,
			is_enabled: true,
			metadata: {},
		})
	})

	test('levels follow parent_id; same name under different parents is fine', async () => {
		const root = (await create({ names: ['Sports'] })).body.topics[0]
		const child = (
			await create({ topics: [{ name: 'Cricket', parent_id: root.id, is_searchable: 'true' }] })
		).body.topics[0]
		expect(child).toMatchObject({ parent_id: root.id, level: 1, is_searchable: true })
		const grand = (await create({ topics: [{ name: 'Cricket', parent_id: child.id }] })).body
			.topics[0]
		expect(grand.level).toBe(2)
		const rootAgain = (await create({ topics: [{ name: 'Cricket', parent_id: '' }] })).body
			.topics[0]
		expect(rootAgain).toMatchObject({ parent_id: '', level: 0 })
		// feed-js's child_topics: a page's topics' children by parent id (Cricket under
		// Sports, its own Cricket under it); a childless topic has no key
		const page = await list(`parent_ids=${encodeURIComponent(JSON.stringify([root.id]))}`)
		expect(page.status).toBe(200)
		expect(page.body.data.topics.map((x: { id: string }) => x.id)).toEqual([child.id])
		expect(Object.keys(page.body.data.child_topics)).toEqual([child.id])
		expect(page.body.data.child_topics[child.id].map((x: { id: string }) => x.id)).toEqual([
			grand.id,
		])
		expect(page.body.data.widgets).toEqual({})
	})

	test('duplicate names (case-insensitive, per parent) are 400 and create nothing', async () => {
		await create({ names: ['Music'] })
		const before =
			await sql`select count(*)::int as n from topics where community_id = ${community.communityId}`
		const dupExisting = await create({ names: ['Fresh', 'MUSIC'] })
		expect(dupExisting.status).toBe(400)
		expect(dupExisting.body.success).toBe(false)
		const dupInside = await create({ names: ['Dup'], topics: [{ name: 'dup ' }] })
		expect(dupInside.status).toBe(400)
		const after =
			await sql`select count(*)::int as n from topics where community_id = ${community.communityId}`
		expect(after[0].n).toBe(before[0].n)
	})

	test('missing or invalid parameters are 400', async () => {
		for (const body of [
			{},
			{ names: [] },
			{ names: [''] },
			{ names: [42] },
			{ topics: [{ priority: 1 }] },
			{ topics: [{ name: 'X', priority: 'high' }] },
			{ topics: [{ name: 'X', is_searchable: 'maybe' }] },
			{ topics: [{ name: 'X', metadata: 'x' }] },
			{ topics: [{ name: 'X', parent_id: '0123456789abcdef01234567' }] },
			{ names: ['x'.repeat(101)] },
		]) {
			const reply = await create(body)
			expect(reply.status, JSON.stringify(body)).toBe(400)
			expect(reply.body.success).toBe(false)
		}
	})

	test('403 without CM rights, 401 without a token; a parent of another community is 400', async () => {
		expect((await create({ names: ['Nope'] }, member.token)).status).toBe(403)
		expect((await api('POST', '/feed/topic', { body: { names: ['Nope'] } })).status).toBe(401)
		const other = await newCommunity('topics-other')
		const otherCm = await newUser(other, { role: 'cm' })
		const foreign = (await create({ names: ['Theirs'] }, otherCm.token)).body.topics[0]
		expect((await create({ topics: [{ name: 'Child', parent_id: foreign.id }] })).status).toBe(400)
	})
})

describe('GET /feed/topic', () => {
	let c: TestCommunity
	let admin: TestUser
	let reader: TestUser
	const ids: Record<string, string> = {}

	beforeAll(async () => {
		c = await newCommunity('topics-list')
		admin = await newUser(c, { role: 'cm' })
		reader = await newUser(c)
		const roots = await create(
			{
				topics: [
					{ name: 'Zeta', priority: 1 },
					{ name: 'alpha', priority: 5 },
					{ name: 'Mango', priority: 3, is_enabled: false },
					{ name: 'Banana 100%', priority: 2 },
				],
			},
			admin.token,
		)
		for (const t of roots.body.topics) ids[t.name] = t.id
		const kids = await create(
			{
				topics: [
					{ name: 'Kid', parent_id: ids.Zeta },
					{ name: 'Kid2', parent_id: ids.alpha },
				],
			},
			admin.token,
		)
		for (const t of kids.body.topics) ids[t.name] = t.id
		for (let i = 0; i < 3; i++) {
			const postId = newId()
			await sql`insert into posts (id, community_id, user_id, created_at, updated_at) values (${postId}, ${c.communityId}, ${reader.id}, ${Date.now()}, ${Date.now()})`
			// The repo's link (it writes the topics' count deltas), as every writer of links does.
			await linkTopics(
				sql,
				postId,
				[ids.Zeta as string, ...(i === 0 ? [ids.Mango as string] : [])],
				c.communityId,
			)
		}
	})

	const names = (reply: any) => reply.body.topics.map((t: any) => t.name)
	const get = (query: string) => list(query, reader.token)

	test('defaults: page 1, page_size 10, total, ordered by priority; payload also under data', async () => {
		const reply = await get('')
		expect(reply.status).toBe(200)
		expect(reply.body).toMatchObject({ success: true, page: 1, page_size: 10, total: 6 })
		expect(names(reply).slice(0, 4)).toEqual(['alpha', 'Mango', 'Banana 100%', 'Zeta'])
		expect(reply.body.data).toMatchObject({ page: 1, page_size: 10, total: 6 })
	})

	test('paging and every order', async () => {
		const page2 = await get('page=2&page_size=4&topics_order_by=name')
		expect(page2.body).toMatchObject({ page: 2, page_size: 4, total: 6 })
		expect(names(page2)).toEqual(['Mango', 'Zeta'])
		expect(names(await get('topics_order_by=name'))).toEqual([
			'alpha',
			'Banana 100%',
			'Kid',
			'Kid2',
			'Mango',
			'Zeta',
		])
		expect(names(await get('topics_order_by=post_count'))[0]).toBe('Zeta')
		expect(names(await get('topics_order_by=created_at'))[0]).toMatch(/^Kid/)
		expect((await get('page=9')).body).toMatchObject({ total: 6, topics: [] })
		expect((await get('page_size=1000')).body.page_size).toBe(100)
	})

	test('filters: is_enabled, search, min_posts, parent_ids (comma list, JSON array, root)', async () => {
		expect(names(await get('is_enabled=false'))).toEqual(['Mango'])
		expect((await get('is_enabled=true')).body.total).toBe(5)
		expect(names(await get('search_type=name&search=ALP'))).toEqual(['alpha'])
		expect(names(await get(`search=${encodeURIComponent('100%')}`))).toEqual(['Banana 100%'])
		expect(names(await get(`search=${encodeURIComponent('%')}`))).toEqual(['Banana 100%'])
		expect(names(await get('min_posts=1'))).toEqual(['Mango', 'Zeta'])
		expect(names(await get('min_posts=2'))).toEqual(['Zeta'])
		expect(names(await get(`parent_ids=${ids.Zeta},${ids.alpha}&topics_order_by=name`))).toEqual([
			'Kid',
			'Kid2',
		])
		const json = encodeURIComponent(JSON.stringify([ids.alpha]))
		expect(names(await get(`parent_ids=${json}`))).toEqual(['Kid2'])
		expect((await get(`parent_ids=${encodeURIComponent('[""]')}`)).body.total).toBe(4)
	})

	test('post_count is exact and follows deletes', async () => {
		const zeta = (await get('search=Zeta')).body.topics[0]
		expect(zeta.post_count).toBe(3)
		const [post] =
			await sql`select post_id from post_topics where topic_id = ${ids.Zeta as string} limit 1`
		const deleted = await api('DELETE', `/feed/post/${post!.post_id}`, { token: admin.token })
		expect(deleted.status).toBe(200)
		expect((await get('search=Zeta')).body.topics[0].post_count).toBe(2)
	})

	test('invalid parameters are 400; another community sees none of these topics', async () => {
		for (const query of [
			'is_enabled=maybe',
			'topics_order_by=bogus',
			'search_type=colour&search=x',
			'page=0',
			'page_size=x',
			'min_posts=-1',
			'parent_ids=%5Bbroken',
		]) {
			const reply = await get(query)
			expect(reply.status, query).toBe(400)
			expect(reply.body.success).toBe(false)
		}
		expect((await api('GET', '/feed/topic')).status).toBe(401)
		expect((await list('')).body.topics.map((t: any) => t.id)).not.toContain(ids.Zeta)
	})
})

describe('PUT /feed/topic/:topic_id', () => {
	test('edits fields, disables and enables', async () => {
		const topic = (await create({ names: ['Editable'] })).body.topics[0]
		const edit = await api('PUT', `/feed/topic/${topic.id}`, {
			token: cm.token,
			body: {
				name: 'Edited',
				priority: 7,
				is_searchable: 'false',
				metadata: { icon: 'i' },
				is_enabled: false,
			},
		})
		expect(edit.status).toBe(200)
		expect(edit.body.topic).toMatchObject({
			name: 'Edited',
			priority: 7,
			is_searchable: false,
			is_enabled: false,
			metadata: { icon: 'i' },
		})
		expect(edit.body.data.topic).toEqual(edit.body.topic)
		expect((await findEnabledTopics(sql, community.communityId, [topic.id])).length).toBe(0)
		const enable = await api('PUT', `/feed/topic/${topic.id}`, {
			token: cm.token,
			body: { is_enabled: true },
		})
		expect(enable.body.topic).toMatchObject({ name: 'Edited', is_enabled: true })
		expect((await findEnabledTopics(sql, community.communityId, [topic.id])).length).toBe(1)
		const sameNameOtherCase = await api('PUT', `/feed/topic/${topic.id}`, {
			token: cm.token,
			body: { name: 'EDITED' },
		})
		expect(sameNameOtherCase.body.topic.name).toBe('EDITED')
	})

	test('renaming onto a sibling is 400; unknown and foreign ids 404; members 403', async () => {
		const [a, b] = (await create({ names: ['SibA', 'SibB'] })).body.topics
		expect(
			(await api('PUT', `/feed/topic/${b.id}`, { token: cm.token, body: { name: 'siba' } })).status,
		).toBe(400)
		expect(
			(await api('PUT', `/feed/topic/${a.id}`, { token: cm.token, body: { is_enabled: 'nope' } }))
				.status,
		).toBe(400)
		expect(
			(await api('PUT', `/feed/topic/${a.id}`, { token: cm.token, body: { name: '' } })).status,
		).toBe(400)
		expect(
			(
				await api('PUT', '/feed/topic/0123456789abcdef01234567', {
					token: cm.token,
					body: { priority: 1 },
				})
			).status,
		).toBe(404)
		const other = await newCommunity('topics-put-other')
		const otherCm = await newUser(other, { role: 'cm' })
		expect(
			(await api('PUT', `/feed/topic/${a.id}`, { token: otherCm.token, body: { priority: 1 } }))
				.status,
		).toBe(404)
		expect(
			(await api('PUT', `/feed/topic/${a.id}`, { token: member.token, body: { priority: 1 } }))
				.status,
		).toBe(403)
	})
})

describe('DELETE /feed/topic', () => {
	test('deletes topics with their children; unknown ids are listed as failed', async () => {
		const parent = (await create({ names: ['DelParent'] })).body.topics[0]
		const child = (await create({ topics: [{ name: 'DelChild', parent_id: parent.id }] })).body
			.topics[0]
		const keep = (await create({ names: ['Keep'] })).body.topics[0]
		const postId = await newPost(member, { text: 'p', topic_ids: [child.id, keep.id] })
		const reply = await api('DELETE', '/feed/topic', {
			token: cm.token,
			body: { topic_ids: [parent.id, 'nope'] },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.deleted).toEqual(
			expect.arrayContaining([
				{ topic_id: parent.id, status: 'deleted' },
				{ topic_id: child.id, status: 'deleted' },
			]),
		)
		expect(reply.body.deleted).toHaveLength(2)
		expect(reply.body.failed).toEqual([
			{ topic_id: 'nope', status: 'failed', reason: 'Topic not found' },
		])
		expect(reply.body.data.deleted).toEqual(reply.body.deleted)
		const left = await sql`select topic_id from post_topics where post_id = ${postId}`
		expect(left.map((r) => r.topic_id)).toEqual([keep.id])
		expect((await list('search=Del')).body.total).toBe(0)
	})

	test('missing topic_ids is 400, members 403, foreign ids fail', async () => {
		expect((await api('DELETE', '/feed/topic', { token: cm.token, body: {} })).status).toBe(400)
		expect(
			(await api('DELETE', '/feed/topic', { token: cm.token, body: { topic_ids: [] } })).status,
		).toBe(400)
		expect(
			(await api('DELETE', '/feed/topic', { token: cm.token, body: { topic_ids: 'x' } })).status,
		).toBe(200)
		const mine = (await create({ names: ['Guarded'] })).body.topics[0]
		expect(
			(await api('DELETE', '/feed/topic', { token: member.token, body: { topic_ids: [mine.id] } }))
				.status,
		).toBe(403)
		const other = await newCommunity('topics-del-other')
		const otherCm = await newUser(other, { role: 'cm' })
		const reply = await api('DELETE', '/feed/topic', {
			token: otherCm.token,
			body: { topic_ids: [mine.id] },
		})
		expect(reply.body.failed).toHaveLength(1)
		expect((await list('search=Guarded')).body.total).toBe(1)
	})
})
