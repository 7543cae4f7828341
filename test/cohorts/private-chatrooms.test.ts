// Private chatrooms through cohorts: secret-room visibility per access level (0/1/2),
// joining and posting, members added to an attached cohort later, add_existing_members,
// detach with removed_participant_count, the share link and opening it, and the
// joined/left events with their cohort methods at a local webhook receiver.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { config } from '../../src/config'
import { startDelivery } from '../../src/webhooks/engine'
import { follow, newRoom } from '../support/chat'
import { newUser, type TestUser } from '../support/community'
import { api } from '../support/http'
import { type Receiver, startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'
import { register, type Setup, setup } from '../support/webhooks'
import { attach, getRoom, newCohort, participantUuids, setAccess } from './support'

let s: Setup
let cm: TestUser
let ana: TestUser
let ben: TestUser
let outsider: TestUser
let receiver: Receiver
let stopEngine: () => Promise<void>

beforeAll(async () => {
	stopEngine = startDelivery({ pollMs: 20 })
	receiver = startReceiver()
	s = await setup('private-chatrooms')
	cm = s.cm
	ana = await newUser(s.community, { name: 'Ana' })
	ben = await newUser(s.community, { name: 'Ben' })
	outsider = await newUser(s.community, { name: 'Out' })
	for (const type of ['chatroom.joined', 'chatroom.left'])
		await register(s, receiver.url.replace('/hook', `/${type}`), type)
})

afterAll(async () => {
	await stopEngine()
	receiver.stop()
})

const secretRoom = () => newRoom(cm, { title: 'Secret', is_secret: true })
const post = (user: TestUser, chatroomId: string) =>
	api('POST', '/conversation', { token: user.token, body: { chatroom_id: chatroomId, text: 'hi' } })
const listedIds = async (user: TestUser) =>
	(await api('GET', '/chatroom?page_size=100', { token: user.token })).body.data.chatrooms.map(
		(r: { id: string }) => r.id,
	)

describe('secret-room visibility per access level', () => {
	test('2 sees and joins and posts; 1 sees but cannot join or post; 0 and outsiders get 404', async () => {
		const room = await secretRoom()
		const cohort = await newCohort(cm, [ana])
		// before attaching: invisible to the member (positive control below)
		expect((await getRoom(ana, room.id)).status).toBe(404)
		expect(await listedIds(ana)).not.toContain(room.id)
		expect((await attach(cm, room.id, [cohort.cohort_id])).status).toBe(200)

		const access = await api('GET', `/chatroom/cohort/access?chatroom_id=${room.id}`, {
			token: cm.token,
		})
		expect(access.body.data.cohort_data).toEqual([
			{ cohort_id: cohort.cohort_id, chatroom_id: room.id, cohort_access: 2 },
		])
		const seen = await getRoom(ana, room.id)
		expect(seen.status).toBe(200)
		expect(seen.body.data).toMatchObject({ can_access_secret_chatroom: true, cohort_access: 2 })
		expect(await listedIds(ana)).toContain(room.id)
		expect((await getRoom(outsider, room.id)).status).toBe(404)
		expect(await listedIds(outsider)).not.toContain(room.id)
		await follow(ana, room.id)
		expect((await post(ana, room.id)).status).toBe(200)

		expect((await setAccess(cm, room.id, cohort.cohort_id, 1)).status).toBe(200)
		expect((await getRoom(ana, room.id)).body.data.cohort_access).toBe(1)
		// still seated, but read only
		expect((await getRoom(ana, room.id)).body.data.chatroom.follow_status).toBe(true)
		const readOnly = await post(ana, room.id)
		expect(readOnly.status).toBe(403)
		expect(readOnly.body.error_message).toBe('Your access to this chatroom is read only')
		const reader = await newUser(s.community)
		await api('PUT', '/community/cohort', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, uuids: [ana.uuid, reader.uuid] },
		})
		expect((await getRoom(reader, room.id)).status).toBe(200)
		const join = await api('PUT', '/chatroom/follow', {
			token: reader.token,
			body: { chatroom_id: room.id, value: true },
		})
		expect(join.status).toBe(403)

		const none = await setAccess(cm, room.id, cohort.cohort_id, 0)
		expect(none.body.data.cohort_data.cohort_access).toBe(0)
		expect(none.body.data.removed_participant_count).toBe(1)
		expect((await getRoom(ana, room.id)).status).toBe(404)
		expect((await getRoom(reader, room.id)).status).toBe(404)
		expect(await listedIds(reader)).not.toContain(room.id)
		// the CM always sees it
		expect((await getRoom(cm, room.id)).status).toBe(200)
		const bad = await setAccess(cm, room.id, cohort.cohort_id, 3)
		expect(bad.status).toBe(400)
	})

	test('members added to an attached cohort later gain access at once', async () => {
		const room = await secretRoom()
		const cohort = await newCohort(cm, [ana])
		await attach(cm, room.id, [cohort.cohort_id])
		expect((await getRoom(ben, room.id)).status).toBe(404)
		await api('PUT', '/community/cohort', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, uuids: [ana.uuid, ben.uuid] },
		})
		expect((await getRoom(ben, room.id)).status).toBe(200)
		await follow(ben, room.id)
		expect((await post(ben, room.id)).status).toBe(200)
	})
})

describe('attach and detach', () => {
	test('add_existing_members seats the cohort; detach unseats those no other cohort covers', async () => {
		const room = await secretRoom()
		const carla = await newUser(s.community, { name: 'Carla' })
		const first = await newCohort(cm, [ana, ben], 'First')
		const second = await newCohort(cm, [ben], 'Second')
		const seated = await attach(cm, room.id, [first.cohort_id, second.cohort_id], true)
		expect(seated.status).toBe(200)
		// a member the CM seated stays whatever happens to cohorts
		await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, uuid: carla.uuid },
		})
		expect(await participantUuids(cm, room.id)).toEqual(
			[ana.uuid, ben.uuid, carla.uuid, cm.uuid].sort(),
		)
		const attached = (await getRoom(cm, room.id)).body.data.chatroom.cohorts
		expect(attached.map((c: { cohort_id: number }) => c.cohort_id)).toEqual([
			first.cohort_id,
			second.cohort_id,
		])

		const detached = await api('DELETE', '/chatroom/cohort', {
			token: cm.token,
			body: { chatroom_id: room.id, cohort_id: first.cohort_id },
		})
		expect(detached.status).toBe(200)
		expect(detached.body.data).toEqual({ removed_participant_count: 1 })
		expect(await participantUuids(cm, room.id)).toEqual([ben.uuid, carla.uuid, cm.uuid].sort())
		expect((await getRoom(ana, room.id)).status).toBe(404)

		const again = await api('DELETE', '/chatroom/cohort', {
			token: cm.token,
			body: { chatroom_id: room.id, cohort_id: first.cohort_id },
		})
		expect(again.status).toBe(404)

		await waitFor(() =>
			receiver.receipts.some(
				(r) =>
					r.path === '/chatroom.left' &&
					r.json.data.chatroom.id === room.id &&
					r.json.data.user.uuid === ana.uuid,
			),
		)
		const left = receiver.receipts.filter(
			(r) => r.path === '/chatroom.left' && r.json.data.chatroom.id === room.id,
		)
		expect(left.map((r) => [r.json.data.user.uuid, r.json.data.left_method])).toEqual([
			[ana.uuid, 'cohort_chatroom_removed'],
		])
		const joined = receiver.receipts
			.filter((r) => r.path === '/chatroom.joined' && r.json.data.chatroom.id === room.id)
			.map((r) => [r.json.data.user.uuid, r.json.data.join_method])
		expect(joined).toContainEqual([ana.uuid, 'cohort_chatroom_added'])
		expect(joined).toContainEqual([ben.uuid, 'cohort_chatroom_added'])
		expect(joined).toContainEqual([carla.uuid, 'cm_added'])
	})

	test('removing a member from an attached cohort unseats them', async () => {
		const room = await secretRoom()
		const cohort = await newCohort(cm, [ana, ben])
		await attach(cm, room.id, [cohort.cohort_id], true)
		await api('DELETE', '/community/cohort/member', {
			token: cm.token,
			body: { cohort_id: cohort.cohort_id, uuid: ana.uuid },
		})
		expect(await participantUuids(cm, room.id)).toEqual([ben.uuid, cm.uuid].sort())
		expect((await getRoom(ana, room.id)).status).toBe(404)
	})

	test('unknown rooms and cohorts are 404; members may not attach', async () => {
		const room = await secretRoom()
		const cohort = await newCohort(cm, [ana])
		expect((await attach(cm, room.id, [999999])).status).toBe(404)
		expect((await attach(cm, '999999999', [cohort.cohort_id])).status).toBe(404)
		expect((await attach(ana, room.id, [cohort.cohort_id])).status).toBe(403)
		expect(
			(await api('GET', '/chatroom/cohort/access?chatroom_id=x', { token: cm.token })).status,
		).toBe(404)
		expect((await setAccess(cm, room.id, cohort.cohort_id, 1)).status).toBe(404)
		expect((await attach(cm, room.id, [cohort.cohort_id])).status).toBe(200)
	})

	test('cohort ids past 32 bits: unknown ones are 404 (the link 403), never a 500', async () => {
		const room = await secretRoom()
		for (const id of [2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER]) {
			expect((await attach(cm, room.id, [id])).status).toBe(404)
			expect((await setAccess(cm, room.id, id, 1)).status).toBe(404)
			const detach = { chatroom_id: room.id, cohort_id: id }
			expect(
				(await api('DELETE', '/chatroom/cohort', { token: cm.token, body: detach })).status,
			).toBe(404)
			const share = `/chatroom/share?chatroom_id=${room.id}&cohort_id=${id}`
			expect((await api('GET', share, { token: cm.token })).status).toBe(404)
			const link = `/collabcard/${room.id}?cohort_id=${id}`
			expect((await api('GET', link, { token: ana.token })).status).toBe(403)
		}
		const created = await api('POST', '/chatroom', {
			token: cm.token,
			body: { title: 'Unknown cohort', is_secret: true, cohort_ids: [2 ** 32 + 7] },
		})
		expect(created.status).toBe(404)
	})
})

describe('share link', () => {
	test('built from PUBLIC_BASE_URL; opening it seats a member of the cohort, nobody else', async () => {
		const room = await secretRoom()
		const cohort = await newCohort(cm, [ana])
		const unattached = await newCohort(cm, [ben])
		await attach(cm, room.id, [cohort.cohort_id])
		const reply = await api(
			'GET',
			`/chatroom/share?chatroom_id=${room.id}&cohort_id=${cohort.cohort_id}`,
			{
				token: cm.token,
			},
		)
		expect(reply.status).toBe(200)
		const share = reply.body.data.chatroom_share
		expect(share.share_url).toBe(
			`${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/collabcard/${room.id}?cohort_id=${cohort.cohort_id}`,
		)
		expect(share.link_created_at).toBeGreaterThan(Date.now() - 60_000)
		const notAttached = await api(
			'GET',
			`/chatroom/share?chatroom_id=${room.id}&cohort_id=${unattached.cohort_id}`,
			{ token: cm.token },
		)
		expect(notAttached.status).toBe(404)

		const path = new URL(share.share_url).pathname + new URL(share.share_url).search
		const stranger = await api('GET', path, { token: ben.token })
		expect(stranger.status).toBe(403)
		expect((await getRoom(ben, room.id)).status).toBe(404)
		const opened = await api('GET', path, { token: ana.token })
		expect(opened.status).toBe(200)
		expect((await getRoom(ana, room.id)).body.data.chatroom.follow_status).toBe(true)
		expect(await participantUuids(cm, room.id)).toContain(ana.uuid)
	})

	test('many cohort members opening the link at once are all seated', async () => {
		const room = await secretRoom()
		const members: TestUser[] = []
		for (let i = 0; i < 30; i++) members.push(await newUser(s.community))
		const cohort = await newCohort(cm, members)
		await attach(cm, room.id, [cohort.cohort_id])
		const path = `/collabcard/${room.id}?cohort_id=${cohort.cohort_id}`
		const replies = await Promise.all(members.map((m) => api('GET', path, { token: m.token })))
		expect(replies.map((r) => r.status)).toEqual(members.map(() => 200))
		expect((await participantUuids(cm, room.id)).length).toBe(31)
	}, 30_000)
})
