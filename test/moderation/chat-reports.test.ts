// Reports in chat through the HTTP API: a reported conversation, and every message of a
// reported member, leave their reporter's chat pages (newest, older, sync) and search at
// once while everyone else still reads them; past the community's threshold a
// conversation is held back from every reader (answered as removed) until a CM closes
// its reports, which lets it go.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let author: TestUser
let spammer: TestUser
let reporter: TestUser
let bystander: TestUser
let other: TestUser
let roomId: string
let conversationTag: number
let memberTag: number

interface Said {
	id: string
	answer: string
	is_deleted: boolean
}

async function newest(user: TestUser): Promise<Said[]> {
	const reply = await api('GET', `/conversation?chatroom_id=${roomId}&paginate_by=50`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data.conversations
}

async function older(user: TestUser, anchor: string): Promise<Said[]> {
	const reply = await api(
		'GET',
		`/conversation?chatroom_id=${roomId}&conversation_id=${anchor}&scroll_direction=0&paginate_by=50`,
		{ token: user.token },
	)
	expect(reply.status).toBe(200)
	return reply.body.data.conversations
}

async function synced(user: TestUser): Promise<Said[]> {
	const reply = await api('GET', `/conversation/sync?chatroom_id=${roomId}&min_timestamp=0`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data.conversations_data
}

async function searched(user: TestUser, word: string): Promise<string[]> {
	const reply = await api('GET', `/conversation/search?search=${word}&page=1&page_size=20`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	return (reply.body.data.conversations as Said[]).map((c) => c.id)
}

const idsOf = (list: Said[]) => list.map((c) => c.id)

async function tagOf(type: string) {
	const reply = await api('GET', `/community/report/tag?entity_type=${type}`, {
		token: reporter.token,
	})
	expect(reply.status).toBe(200)
	return (reply.body.data.report_tags as { id: number; name: string }[])[0]?.id as number
}

const report = (user: TestUser, body: Record<string, unknown>) =>
	api('POST', '/community/report', { token: user.token, body })

beforeAll(async () => {
	community = await newCommunity('chat-reports')
	cm = await newUser(community, { role: 'cm' })
	author = await newUser(community)
	spammer = await newUser(community)
	reporter = await newUser(community)
	bystander = await newUser(community)
	other = await newUser(community)
	roomId = (await newRoom(cm, { title: 'Lounge' })).id
	for (const user of [author, spammer, reporter, bystander, other]) await follow(user, roomId)
	conversationTag = await tagOf('conversation')
	memberTag = await tagOf('member')
})

describe('a reported conversation', () => {
	let first: Said
	let second: Said
	let anchor: Said

	beforeAll(async () => {
		first = await say(author, roomId, 'marmalade recipe first')
		second = await say(author, roomId, 'marmalade recipe second')
		anchor = await say(author, roomId, 'an anchor to scroll from')
		// a positive control before the report: both readers see it everywhere
		for (const user of [reporter, bystander]) {
			expect(idsOf(await newest(user))).toContain(first.id)
			expect(await searched(user, 'marmalade')).toContain(first.id)
		}
		const filed = await report(reporter, { conversation_id: first.id, tag_id: conversationTag })
		expect(filed.status).toBe(200)
	})

	test('leaves its reporter’s pages, sync and search at once', async () => {
		expect(idsOf(await newest(reporter))).not.toContain(first.id)
		expect(idsOf(await older(reporter, anchor.id))).not.toContain(first.id)
		expect(idsOf(await synced(reporter))).not.toContain(first.id)
		expect(await searched(reporter, 'marmalade')).not.toContain(first.id)
		// the rest of the page is still there
		expect(idsOf(await newest(reporter))).toContain(second.id)
		expect(await searched(reporter, 'marmalade')).toContain(second.id)
	})

	test('everyone else still reads it', async () => {
		expect(idsOf(await newest(bystander))).toContain(first.id)
		expect(idsOf(await older(bystander, anchor.id))).toContain(first.id)
		expect(idsOf(await synced(bystander))).toContain(first.id)
		expect(await searched(bystander, 'marmalade')).toContain(first.id)
	})

	test('a second report by the same member is refused', async () => {
		const again = await report(reporter, { conversation_id: first.id, tag_id: conversationTag })
		expect(again.status).toBe(409)
		expect(again.body.success).toBe(false)
	})
})

describe('a reported member', () => {
	test('their messages leave the reporter’s chat pages, before and after the report', async () => {
		const before = await say(spammer, roomId, 'buy cheap watches')
		const filed = await report(reporter, { reported_member_id: spammer.uuid, tag_id: memberTag })
		expect(filed.status).toBe(200)
		const after = await say(spammer, roomId, 'buy more cheap watches')
		const seen = idsOf(await newest(reporter))
		expect(seen).not.toContain(before.id)
		expect(seen).not.toContain(after.id)
		expect(await searched(reporter, 'watches')).toEqual([])
		// positive controls: the reporter still reads the others, the bystander the spammer
		expect(seen.length).toBeGreaterThan(0)
		const control = idsOf(await newest(bystander))
		expect(control).toContain(before.id)
		expect(control).toContain(after.id)
		expect((await searched(bystander, 'watches')).sort()).toEqual([before.id, after.id].sort())
	})
})

describe('a member named by id', () => {
	test('chat-js names the member by user id (past 2^32): the report names them; an unknown id is 404', async () => {
		const byId = await report(other, { reported_member_id: spammer.id, tag_id: memberTag })
		expect(byId.status).toBe(200)
		expect(byId.body.data.report).toMatchObject({
			type: 'member',
			accused_user: { uuid: spammer.uuid, id: spammer.id },
			reported_by_user: { uuid: other.uuid, id: other.id },
		})
		const unknown = await report(other, {
			reported_member_id: String(spammer.id + 1_000_000_000_000),
			tag_id: memberTag,
		})
		expect(unknown.status).toBe(404)
	})
})

describe('past the threshold', () => {
	let heldOne: Said

	beforeAll(async () => {
		const set = await api('PUT', '/community/settings/moderation', {
			token: cm.token,
			body: { auto_hide_after_reports: 2 },
		})
		expect(set.status).toBe(200)
		heldOne = await say(author, roomId, 'a contested opinion')
		const one = await report(bystander, { conversation_id: heldOne.id, tag_id: conversationTag })
		expect(one.status).toBe(200)
	})

	test('one report short, it reads as before for the others', async () => {
		const seen = (await newest(other)).find((c) => c.id === heldOne.id)
		expect(seen).toMatchObject({ answer: 'a contested opinion', is_deleted: false })
	})

	test('held: every reader gets it as removed, in pages and in sync; search drops it', async () => {
		const two = await report(other, { conversation_id: heldOne.id, tag_id: conversationTag })
		expect(two.status).toBe(200)
		for (const user of [author, cm]) {
			const onPage = (await newest(user)).find((c) => c.id === heldOne.id)
			expect(onPage).toMatchObject({ answer: '', is_deleted: true })
			const onSync = (await synced(user)).find((c) => c.id === heldOne.id)
			expect(onSync).toMatchObject({ answer: '', is_deleted: true })
		}
		expect(await searched(author, 'contested')).toEqual([])
	})

	test('a CM closing its reports lets it go', async () => {
		const queue = await api('GET', '/community/report?filter_type=["conversation"]', {
			token: cm.token,
		})
		expect(queue.status).toBe(200)
		const group = queue.body.data.reports_data.find(
			(g: { entity_id: string }) => g.entity_id === heldOne.id,
		)
		expect(group.reporters_count).toBe(2)
		const reportIds = (group.reports as { id: number }[]).map((r) => r.id)
		expect(reportIds.length).toBe(2)
		const closed = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: reportIds, action_taken: 'EDIT_MEMBER_PERMISSION' },
		})
		expect(closed.status).toBe(200)
		const seen = (await newest(author)).find((c) => c.id === heldOne.id)
		expect(seen).toMatchObject({ answer: 'a contested opinion', is_deleted: false })
		expect(await searched(author, 'contested')).toEqual([heldOne.id])
		// its reporters still never see it again
		expect(idsOf(await newest(other))).not.toContain(heldOne.id)
	})
})
