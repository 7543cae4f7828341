// Member rights (DESIGN §17): GET /moderation/rights reads them, PATCH (is_cm or feed-js's
// is_c_m, rights, custom_title) changes them, and a member without a right is refused
// where the right applies — on live tokens, at their next request. CMs hold every right.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('member-rights')
	cm = await newUser(community, { role: 'cm' })
})

const readRights = (token: string, query = '') =>
	api('GET', `/moderation/rights${query}`, { token })

const setRights = (body: Record<string, unknown>, token = cm.token) =>
	api('PATCH', '/moderation/rights', { token, body })

const selected = (rights: { id: number; is_selected: boolean }[]) =>
	Object.fromEntries(rights.map((r) => [r.id, r.is_selected]))

const post = (user: TestUser, text = 'hi') =>
	api('POST', '/feed/post', { token: user.token, body: { text } })

describe('GET /moderation/rights', () => {
	test('a member reads their own rights and role; every right held by default', async () => {
		const member = await newUser(community)
		const reply = await readRights(member.token, '?is_cm=undefined')
		expect(reply.status).toBe(200)
		expect(reply.body.data).toMatchObject({ role: 'member', is_cm: false })
		expect(reply.body.data.member).toMatchObject({ uuid: member.uuid, state: 4 })
		expect(selected(reply.body.data.rights)).toEqual({ 3: true, 4: true, 9: true, 10: true })
		expect(reply.body.data.rights[0]).toMatchObject({ is_locked: false, title: expect.any(String) })
	})

	test("another member's rights: a CM reads them, a member is refused", async () => {
		const member = await newUser(community)
		const peer = await newUser(community)
		const byCm = await readRights(cm.token, `?uuid=${member.uuid}&is_cm=false`)
		expect(byCm.status).toBe(200)
		expect(byCm.body.data.member.uuid).toBe(member.uuid)
		const byPeer = await readRights(peer.token, `?uuid=${member.uuid}`)
		expect(byPeer.status).toBe(403)
		expect(byPeer.body.error_message).toBe('You are not CM/Owner of this community')
	})

	test('a CM holds every right, locked', async () => {
		const reply = await readRights(cm.token)
		expect(reply.body.data).toMatchObject({ role: 'cm', is_cm: true })
		expect(reply.body.data.rights.every((r: any) => r.is_selected && r.is_locked)).toBe(true)
	})

	test('an unknown or foreign uuid is 404', async () => {
		const stranger = await newUser(await newCommunity('member-rights-other'))
		expect((await readRights(cm.token, `?uuid=${stranger.uuid}`)).status).toBe(404)
		expect((await readRights(cm.token, '?uuid=nope')).status).toBe(404)
	})
})

describe('PATCH /moderation/rights', () => {
	test("feed-js's is_c_m grants and removes CM", async () => {
		const member = await newUser(community)
		const grant = await setRights({ uuid: member.uuid, is_c_m: true })
		expect(grant.status).toBe(200)
		expect(grant.body.data).toMatchObject({ role: 'cm', is_cm: true })
		expect((await readRights(member.token)).body.data.role).toBe('cm')
		const remove = await setRights({ uuid: member.uuid, is_c_m: false })
		expect(remove.body.data.role).toBe('member')
		expect((await readRights(member.token)).body.data.role).toBe('member')
	})

	test('a removed right refuses at once on the live token; restoring it allows again', async () => {
		const member = await newUser(community)
		const postId = await newPost(member)
		// Positive control: the member posts and comments before.
		expect((await post(member)).status).toBe(200)
		const take = await setRights({
			uuid: member.uuid,
			rights: [
				{ id: 9, is_selected: false, is_locked: false, title: 'Can create posts' },
				{ id: 10, is_selected: false },
			],
		})
		expect(take.status).toBe(200)
		expect(selected(take.body.data.rights)).toMatchObject({ 9: false, 10: false, 3: true })
		const refused = await post(member)
		expect(refused.status).toBe(403)
		expect(refused.body.error_message).toBe(
			'A community manager removed your right to create posts',
		)
		const comment = await api('POST', `/feed/post/${postId}/comment`, {
			token: member.token,
			body: { text: 'no' },
		})
		expect(comment.status).toBe(403)
		expect(comment.body.error_message).toMatch(/right to comment/)
		// What the member reads of themself agrees.
		expect(selected((await readRights(member.token)).body.data.rights)[9]).toBe(false)
		const state = await api('GET', '/community/member/state', { token: member.token })
		expect(selected(state.body.data.member_rights)[9]).toBe(false)
		// Others are untouched.
		expect((await post(await newUser(community))).status).toBe(200)
		await setRights({ uuid: member.uuid, rights: [{ id: 9, is_selected: true }] })
		expect((await post(member)).status).toBe(200)
		const stillNoComment = await api('POST', `/feed/post/${postId}/comment`, {
			token: member.token,
			body: { text: 'still no' },
		})
		expect(stillNoComment.status).toBe(403)
	})

	test('chat rights: responding and creating polls', async () => {
		const member = await newUser(community)
		const room = await newRoom(cm)
		await follow(member, room.id)
		const poll = {
			chatroom_id: room.id,
			state: 10,
			text: 'Lunch?',
			polls: [{ text: 'Pizza' }, { text: 'Sushi' }],
			expiry_time: Math.floor(Date.now() / 1000) + 3600,
		}
		const say = (body: Record<string, unknown>) =>
			api('POST', '/conversation', { token: member.token, body })
		expect((await say(poll)).status).toBe(200)
		await setRights({ uuid: member.uuid, rights: [{ id: 4, is_selected: false }] })
		const noPoll = await say(poll)
		expect(noPoll.status).toBe(403)
		expect(noPoll.body.error_message).toMatch(/right to create polls/)
		expect((await say({ chatroom_id: room.id, text: 'still talking' })).status).toBe(200)
		await setRights({ uuid: member.uuid, rights: [{ id: 3, is_selected: false }] })
		const silent = await say({ chatroom_id: room.id, text: 'hello?' })
		expect(silent.status).toBe(403)
		expect(silent.body.error_message).toMatch(/right to respond in chatrooms/)
	})

	test('creating polls covers feed poll posts; other posts are still allowed', async () => {
		const member = await newUser(community)
		const pollPost = {
			text: 'Where?',
			attachments: [
				{
					type: 'poll',
					meta_data: {
						title: 'Where?',
						options: ['Park', 'Cafe'],
						expiry_time: Math.floor(Date.now() / 1000) + 3600,
						poll_type: 'instant',
						multiple_select_state: 'exactly',
						multiple_select_number: 1,
					},
				},
			],
		}
		const write = (body: Record<string, unknown>) =>
			api('POST', '/feed/post', { token: member.token, body })
		expect((await write(pollPost)).status).toBe(200)
		await setRights({ uuid: member.uuid, rights: [{ id: 4, is_selected: false }] })
		const refused = await write(pollPost)
		expect(refused.status).toBe(403)
		expect(refused.body.error_message).toMatch(/right to create polls/)
		expect((await write({ text: 'a plain post' })).status).toBe(200)
	})

	test('a CM keeps every right whatever is stored; demoted, the stored rights apply', async () => {
		const member = await newUser(community)
		await setRights({ uuid: member.uuid, rights: [{ id: 9, is_selected: false }] })
		expect((await post(member)).status).toBe(403)
		await setRights({ uuid: member.uuid, is_cm: true })
		expect((await post(member)).status).toBe(200)
		await setRights({ uuid: member.uuid, is_cm: false })
		expect((await post(member)).status).toBe(403)
	})

	test('custom_title is stored and shown on the member', async () => {
		const member = await newUser(community)
		const reply = await setRights({ uuid: member.uuid, custom_title: 'Moderator of pets' })
		expect(reply.status).toBe(200)
		const profile = await api('GET', '/community/member/profile', { token: member.token })
		expect(profile.body.data.member.custom_title).toBe('Moderator of pets')
	})

	test('bad input is 400 naming the field; a member is refused; no change made', async () => {
		const member = await newUser(community)
		const unknown = await setRights({ uuid: member.uuid, rights: [{ id: 77, is_selected: false }] })
		expect(unknown.status).toBe(400)
		expect(unknown.body.error_message).toMatch(/rights\[0\]\.id/)
		const typed = await setRights({ uuid: member.uuid, rights: [{ id: 'x', is_selected: false }] })
		expect(typed.status).toBe(400)
		expect((await setRights({ uuid: member.uuid })).status).toBe(400)
		const byMember = await setRights(
			{ uuid: member.uuid, rights: [{ id: 9, is_selected: false }] },
			(await newUser(community)).token,
		)
		expect(byMember.status).toBe(403)
		expect((await post(member)).status).toBe(200)
	})
})
