// Chatrooms through the HTTP API: create/edit/delete by CMs, reading one and the list,
// follow and leave in every body form, secret rooms, participants, mute and noti_state.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, roomAs } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser

beforeAll(async () => {
	community = await newCommunity('chatrooms')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
})

const conversationsOf = async (user: TestUser, id: string) =>
	(await api('GET', `/conversation?chatroom_id=${id}`, { token: user.token })).body.data
		.conversations as any[]

describe('create, edit, delete', () => {
	test('a CM creates a room: decimal string id, creator seated and shown as member', async () => {
		const room = await newRoom(cm, { title: 'General', header: 'Say hi', type: 0 })
		expect(room.id).toMatch(/^[1-9]\d*$/)
		expect(room).toMatchObject({
			title: 'General',
			header: 'Say hi',
			type: 0,
			is_secret: false,
			follow_status: true,
			participants_count: 1,
			community_id: community.communityId,
			unread_messages: 0,
			cohorts: [],
		})
		expect(room.member).toMatchObject({ id: String(cm.id), uuid: cm.uuid, state: 1 })
		expect(room.created_at).toBeGreaterThan(0)
	})

	test('a member may not create; no token is 401 (before the body is checked); no title is 400', async () => {
		const member = await api('POST', '/chatroom', { token: ana.token, body: { title: 'Mine' } })
		expect(member.status).toBe(403)
		expect(member.body.success).toBe(false)
		const anonymous = await api('POST', '/chatroom', { body: { title: 'Mine' } })
		expect(anonymous.status).toBe(401)
		const anonymousBadBody = await api('POST', '/chatroom', { body: { title: 5 } })
		expect(anonymousBadBody.status).toBe(401)
		const untitled = await api('POST', '/chatroom', { token: cm.token, body: { header: 'x' } })
		expect(untitled.status).toBe(400)
		expect(untitled.body.error_message).toContain('title')
	})

	test('uuids are seated at creation; an unknown uuid is 400 naming it and creates nothing', async () => {
		const ghost = crypto.randomUUID()
		const before = (await api('GET', '/chatroom', { token: cm.token })).body.data
		const bad = await api('POST', '/chatroom', {
			token: cm.token,
			body: { title: 'Seated', uuids: [ana.uuid, ghost] },
		})
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain(ghost)
		const after = (await api('GET', '/chatroom', { token: cm.token })).body.data
		expect(after.total_chatroom_count).toBe(before.total_chatroom_count)

		const room = await newRoom(cm, { title: 'Seated', uuids: [ana.uuid] })
		expect(room.participants_count).toBe(2)
		expect((await roomAs(ana, room.id)).chatroom.follow_status).toBe(true)
	})

	test('cohort_ids attach cohorts and seat their members; an unknown cohort creates nothing', async () => {
		const cohort = await api('POST', '/community/cohort', {
			token: cm.token,
			body: { name: 'Founders', uuids: [ben.uuid] },
		})
		expect(cohort.status).toBe(200)
		const cohortId = cohort.body.data.cohort_data.cohort_id
		const before = (await api('GET', '/chatroom', { token: cm.token })).body.data
		const unknown = await api('POST', '/chatroom', {
			token: cm.token,
			body: { title: 'With cohort', is_secret: true, cohort_ids: [cohortId, 999999] },
		})
		expect(unknown.status).toBe(404)
		const after = (await api('GET', '/chatroom', { token: cm.token })).body.data
		expect(after.total_chatroom_count).toBe(before.total_chatroom_count)

		const room = await newRoom(cm, {
			title: 'With cohort',
			is_secret: true,
			cohort_ids: [cohortId],
		})
		expect(room.cohorts).toEqual([{ cohort_id: cohortId, name: 'Founders', total_members: 1 }])
		const seen = await roomAs(ben, room.id)
		expect(seen.chatroom.follow_status).toBe(true)
		expect(seen.cohort_access).toBe(2)
		// ana is in no attached cohort: the secret room does not exist for her
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: ana.token })).status,
		).toBe(404)
	})

	test('a CM edits and deletes; a deleted, foreign or malformed id is 404', async () => {
		const room = await newRoom(cm, { title: 'Old' })
		const edited = await api('PUT', '/chatroom', {
			token: cm.token,
			body: { chatroom_id: room.id, title: 'New', header: 'h' },
		})
		expect(edited.status).toBe(200)
		expect(edited.body.data.chatroom).toMatchObject({ title: 'New', header: 'h' })
		expect(
			(
				await api('PUT', '/chatroom', {
					token: ana.token,
					body: { chatroom_id: room.id, title: 'x' },
				})
			).status,
		).toBe(403)

		const other = await newCommunity('chatrooms-other')
		const stranger = await newUser(other, { role: 'cm' })
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: stranger.token })).status,
		).toBe(404)
		expect((await api('GET', '/chatroom?chatroom_id=abc', { token: ana.token })).status).toBe(404)

		const deleted = await api('DELETE', '/chatroom', {
			token: cm.token,
			body: { chatroom_id: Number(room.id) },
		})
		expect(deleted.status).toBe(200)
		expect((await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: cm.token })).status).toBe(
			404,
		)
		const list = (await api('GET', '/chatroom?page_size=100', { token: cm.token })).body.data
			.chatrooms
		expect(list.map((r: any) => r.id)).not.toContain(room.id)
	})
})

describe('follow and leave', () => {
	test('joining is idempotent and writes one joined line; leaving writes a left line', async () => {
		const room = await newRoom(cm, { title: 'Open' })
		await follow(ana, room.id)
		await follow(ana, room.id)
		const seen = await roomAs(ana, room.id)
		expect(seen).toMatchObject({ participant_count: 2, can_access_secret_chatroom: true })
		expect(seen.chatroom.follow_status).toBe(true)
		expect('cohort_access' in seen).toBe(false)
		const lines = await conversationsOf(ana, room.id)
		expect(lines.filter((c) => c.state === 2 && c.member.uuid === ana.uuid)).toHaveLength(1)

		await follow(ana, room.id, false)
		await follow(ana, room.id, false)
		const left = await roomAs(ana, room.id)
		expect(left.participant_count).toBe(1)
		expect(left.chatroom.follow_status).toBe(false)
		const after = await conversationsOf(cm, room.id)
		expect(after.filter((c) => c.state === 3 && c.member.uuid === ana.uuid)).toHaveLength(1)
	})

	test('collabcard_id is accepted for chatroom_id; a CM adds and removes by uuid or member_id', async () => {
		const room = await newRoom(cm, { title: 'Forms' })
		const reply = await api('PUT', '/chatroom/follow', {
			token: ben.token,
			body: { collabcard_id: Number(room.id), value: true },
		})
		expect(reply.status).toBe(200)
		expect(reply.body).toEqual({ success: true, error_message: null })
		await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, uuid: ana.uuid },
		})
		expect((await roomAs(ana, room.id)).chatroom.follow_status).toBe(true)
		await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, member_id: String(ana.id), value: false },
		})
		expect((await roomAs(ana, room.id)).chatroom.follow_status).toBe(false)
		// A member may not act on someone else (positive control above: the CM may).
		const forbidden = await api('PUT', '/chatroom/follow', {
			token: ben.token,
			body: { chatroom_id: room.id, uuid: ana.uuid },
		})
		expect(forbidden.status).toBe(403)
		expect((await roomAs(ana, room.id)).chatroom.follow_status).toBe(false)
		const missing = await api('PUT', '/chatroom/follow', {
			token: ben.token,
			body: { value: true },
		})
		expect(missing.status).toBe(400)
	})

	test('participants are listed with the member object and a total', async () => {
		const room = await newRoom(cm, { title: 'Crowd' })
		await follow(ana, room.id)
		await follow(ben, room.id)
		const page = await api(
			'GET',
			`/chatroom/participants?chatroom_id=${room.id}&page=1&page_size=2`,
			{
				token: ana.token,
			},
		)
		expect(page.status).toBe(200)
		expect(page.body.data.total_participants_count).toBe(3)
		expect(page.body.data.participants.map((p: any) => p.uuid)).toEqual([cm.uuid, ana.uuid])
		const next = await api(
			'GET',
			`/chatroom/participants?chatroom_id=${room.id}&page=2&page_size=2`,
			{
				token: ana.token,
			},
		)
		expect(next.body.data.participants).toEqual([
			expect.objectContaining({ id: String(ben.id), uuid: ben.uuid, state: 4, name: 'Ben' }),
		])
		// chat-js's can_edit_participant: a member may not, the CM may
		expect(page.body.data.can_edit_participant).toBe(false)
		const read = (await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: ana.token })).body
			.data
		expect(read.community).toEqual({
			id: community.communityId,
			name: read.chatroom.community_name,
		})
		const asCm = await api('GET', `/chatroom/participants?chatroom_id=${room.id}`, {
			token: cm.token,
		})
		expect(asCm.body.data.can_edit_participant).toBe(true)
	})
})

describe('secret rooms', () => {
	test('invisible (404, not listed) to members without a seat; a CM seat makes it visible', async () => {
		const room = await newRoom(cm, { title: 'Hidden', is_secret: true })
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: ana.token })).status,
		).toBe(404)
		const listed = async (user: TestUser) =>
			(await api('GET', '/chatroom?page_size=100', { token: user.token })).body.data.chatrooms.map(
				(r: any) => r.id,
			)
		expect(await listed(ana)).not.toContain(room.id)
		expect(await listed(cm)).toContain(room.id)
		const join = await api('PUT', '/chatroom/follow', {
			token: ana.token,
			body: { chatroom_id: room.id },
		})
		expect(join.status).toBe(404)

		await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, uuid: ana.uuid },
		})
		expect((await roomAs(ana, room.id)).can_access_secret_chatroom).toBe(true)
		expect(await listed(ana)).toContain(room.id)
		expect(await listed(ben)).not.toContain(room.id)
	})

	test('leaving a secret room goes through DELETE /chatroom/participants', async () => {
		const room = await newRoom(cm, { title: 'Hidden 2', is_secret: true, uuids: [ana.uuid] })
		const unfollow = await api('PUT', '/chatroom/follow', {
			token: ana.token,
			body: { chatroom_id: room.id, value: false },
		})
		expect(unfollow.status).toBe(400)
		expect(unfollow.body.error_message).toBe('Cannot unfollow chatroom')
		const leave = await api('DELETE', '/chatroom/participants', {
			token: ana.token,
			body: { chatroom_id: room.id },
		})
		expect(leave.status).toBe(200)
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: ana.token })).status,
		).toBe(404)
	})
})

describe('mute and notification state', () => {
	test('noti_state is copied from the community default at join and changed per room', async () => {
		const set = await api('PUT', '/community/settings/notification/conversation', {
			token: cm.token,
			body: { noti_state: 2 },
		})
		expect(set.status).toBe(200)
		const room = await newRoom(cm, { title: 'Quiet' })
		await follow(ben, room.id)
		expect((await roomAs(ben, room.id)).chatroom.noti_state).toBe(2)
		await api('PUT', '/community/settings/notification/conversation', {
			token: cm.token,
			body: { noti_state: 1 },
		})
		// already seated: keeps its copy
		expect((await roomAs(ben, room.id)).chatroom.noti_state).toBe(2)

		const change = await api('PUT', '/chatroom/settings', {
			token: ben.token,
			body: { chatroom_id: room.id, noti_state: 3 },
		})
		expect(change.status).toBe(200)
		expect((await roomAs(ben, room.id)).chatroom.noti_state).toBe(3)
		const bad = await api('PUT', '/chatroom/settings', {
			token: ben.token,
			body: { chatroom_id: room.id, noti_state: 4 },
		})
		expect(bad.status).toBe(400)
		const notSeated = await api('PUT', '/chatroom/settings', {
			token: ana.token,
			body: { chatroom_id: room.id, noti_state: 1 },
		})
		expect(notSeated.status).toBe(403)
	})

	test('mute toggles for a participant only', async () => {
		const room = await newRoom(cm, { title: 'Muted' })
		await follow(ana, room.id)
		const muted = await api('PUT', '/chatroom/mute', {
			token: ana.token,
			body: { chatroom_id: room.id, value: true },
		})
		expect(muted.status).toBe(200)
		expect((await roomAs(ana, room.id)).chatroom.is_muted).toBe(true)
		// the same fact under chat-js's name (its Chatroom's muteStatus)
		expect((await roomAs(ana, room.id)).chatroom.mute_status).toBe(true)
		await api('PUT', '/chatroom/mute', {
			token: ana.token,
			body: { chatroom_id: room.id, value: false },
		})
		expect((await roomAs(ana, room.id)).chatroom.is_muted).toBe(false)
		expect((await roomAs(ana, room.id)).chatroom.mute_status).toBe(false)
		const stranger = await api('PUT', '/chatroom/mute', {
			token: ben.token,
			body: { chatroom_id: room.id, value: true },
		})
		expect(stranger.status).toBe(403)
	})
})
