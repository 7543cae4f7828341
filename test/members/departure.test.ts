// Leaving the community, and a CM removing or banning a member (DESIGN §17): tokens
// stop at once, content stays, connections and chatroom seats go; a left or removed
// member comes back by starting a session; a banned customer id cannot until the ban
// is lifted.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, connectionPath, enableConnections } from '../support/connections'
import { eventsFor, newPost } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('departure')
	cm = await newUser(community, { role: 'cm' })
	await enableConnections(community)
})

const initiate = (uniqueId: string) =>
	api('POST', '/sdk/initiate', {
		apiKey: community.apiKey,
		body: { user_unique_id: uniqueId, user_name: 'Again' },
	})

const inDirectory = async (viewer: TestUser, uuid: string) => {
	const reply = await api('GET', '/community/member?page_size=100', { token: viewer.token })
	return reply.body.data.members.some((m: { uuid: string }) => m.uuid === uuid)
}

const connectionsOf = async (user: TestUser) =>
	(await api('GET', connectionPath(user), { token: user.token })).body.data.total_count

const participants = async (viewer: TestUser, roomId: string) => {
	const reply = await api('GET', `/chatroom/participants?chatroom_id=${roomId}`, {
		token: viewer.token,
	})
	return reply.body.data.participants.map((p: { uuid: string }) => p.uuid)
}

describe('DELETE /community/member/remove (leave)', () => {
	test('tokens stop at once; posts stay; connections and seats go; starting again comes back', async () => {
		const leaver = await newUser(community)
		const friend = await newUser(community)
		const witness = await newUser(community)
		await connect(leaver, friend)
		const room = await newRoom(cm)
		await follow(leaver, room.id)
		const postId = await newPost(leaver, { text: 'I was here' })
		expect(await connectionsOf(friend)).toBe(1)
		expect(await participants(cm, room.id)).toContain(leaver.uuid)
		expect(await inDirectory(witness, leaver.uuid)).toBe(true)

		const left = await api('DELETE', '/community/member/remove', {
			token: leaver.token,
			body: { uuids: [leaver.uuid] },
		})
		expect(left.status).toBe(200)
		expect(left.body.data.removed).toEqual([leaver.uuid])

		// The same access token, on its very next request, and the refresh token.
		expect((await api('GET', '/community/member/state', { token: leaver.token })).status).toBe(401)
		const refresh = await api('POST', '/user/refresh', { token: leaver.refreshToken })
		expect(refresh.status).toBe(401)
		// Content kept: the post reads for someone else.
		const read = await api('GET', `/feed/post/${postId}`, { token: witness.token })
		expect(read.status).toBe(200)
		expect(read.body.data.post.text).toBe('I was here')
		// Connections and seats gone, with the room's `chatroom.left` event.
		expect(await connectionsOf(friend)).toBe(0)
		expect(await participants(cm, room.id)).not.toContain(leaver.uuid)
		const events = await eventsFor(community, 'chatroom.left')
		expect(events.some((e: any) => e.user?.uuid === leaver.uuid)).toBe(true)
		expect(await inDirectory(witness, leaver.uuid)).toBe(false)
		// Positive control: the friend and the witness still work.
		expect((await api('GET', '/community/member/state', { token: friend.token })).status).toBe(200)

		const back = await initiate(leaver.uniqueId)
		expect(back.status).toBe(200)
		expect(back.body.data.user.uuid).toBe(leaver.uuid)
		const token = back.body.data.access_token
		expect((await api('GET', '/community/member/state', { token })).status).toBe(200)
		expect(await inDirectory(witness, leaver.uuid)).toBe(true)
	})

	test('an empty body leaves too; a CM who leaves comes back a member', async () => {
		const manager = await newUser(community, { role: 'cm' })
		const left = await api('DELETE', '/community/member/remove', { token: manager.token })
		expect(left.status).toBe(200)
		const back = await initiate(manager.uniqueId)
		const role = await api('GET', '/community/member/role', {
			token: back.body.data.access_token,
		})
		expect(role.body.data.role).toBe('member')
	})
})

describe('CM removal', () => {
	test('a CM removes members; a member cannot; unknown uuids are 404 and nothing happens', async () => {
		const target = await newUser(community)
		const other = await newUser(community)
		const byMember = await api('DELETE', '/community/member/remove', {
			token: other.token,
			body: { uuids: [target.uuid] },
		})
		expect(byMember.status).toBe(403)
		const unknown = await api('DELETE', '/community/member/remove', {
			token: cm.token,
			body: { uuids: [target.uuid, '00000000-0000-4000-8000-000000000000'] },
		})
		expect(unknown.status).toBe(404)
		expect((await api('GET', '/community/member/state', { token: target.token })).status).toBe(200)

		const removed = await api('DELETE', '/community/member/remove', {
			token: cm.token,
			body: { uuids: [target.uuid] },
		})
		expect(removed.status).toBe(200)
		expect((await api('GET', '/community/member/state', { token: target.token })).status).toBe(401)
		expect((await api('GET', '/community/member/state', { token: other.token })).status).toBe(200)
		// The CM sees how the member went; a member no longer finds them.
		const profile = await api('GET', `/community/member/profile?uuid=${target.uuid}`, {
			token: cm.token,
		})
		expect(profile.body.data.member.status).toBe('removed')
		const hidden = await api('GET', `/community/member/profile?uuid=${target.uuid}`, {
			token: other.token,
		})
		expect(hidden.status).toBe(404)
		// Removal is not a ban: the customer id may come back.
		expect((await initiate(target.uniqueId)).status).toBe(200)
	})

	test('bad bodies are 400', async () => {
		for (const body of [{ uuids: 'x' }, { uuids: [5] }, { uuids: Array(101).fill('a') }]) {
			const reply = await api('DELETE', '/community/member/remove', { token: cm.token, body })
			expect(reply.status, JSON.stringify(body)).toBe(400)
		}
	})
})

describe('POST|DELETE /community/member/ban', () => {
	test('a banned customer id cannot start a session until the ban is lifted', async () => {
		const target = await newUser(community)
		const postId = await newPost(target, { text: 'before the ban' })
		const banned = await api('POST', '/community/member/ban', {
			token: cm.token,
			body: { uuid: target.uuid },
		})
		expect(banned.status).toBe(200)
		expect(banned.body.data.status).toBe('banned')
		expect((await api('GET', '/community/member/state', { token: target.token })).status).toBe(401)
		const again = await initiate(target.uniqueId)
		expect(again.status).toBe(403)
		expect(again.body.error_message).toBe('This member is banned from the community')
		// Content kept.
		const read = await api('GET', `/feed/post/${postId}`, { token: cm.token })
		expect(read.body.data.post.text).toBe('before the ban')
		const list = await api('GET', `/community/members?search=${target.uniqueId}`, {
			token: cm.token,
		})
		expect(list.body.data.members[0].status).toBe('banned')

		const lifted = await api('DELETE', '/community/member/ban', {
			token: cm.token,
			body: { uuid: target.uuid },
		})
		expect(lifted.status).toBe(200)
		const back = await initiate(target.uniqueId)
		expect(back.status).toBe(200)
		const twice = await api('DELETE', '/community/member/ban', {
			token: cm.token,
			body: { uuid: target.uuid },
		})
		expect(twice.status).toBe(400)
	})

	test('only a CM or the owner bans; never oneself; the owner cannot be removed', async () => {
		const member = await newUser(community)
		const target = await newUser(community)
		const byMember = await api('POST', '/community/member/ban', {
			token: member.token,
			body: { uuid: target.uuid },
		})
		expect(byMember.status).toBe(403)
		expect(byMember.body.error_message).toBe('You are not CM/Owner of this community')
		expect((await initiate(target.uniqueId)).status).toBe(200)
		const self = await api('POST', '/community/member/ban', {
			token: cm.token,
			body: { uuid: cm.uuid },
		})
		expect(self.status).toBe(400)
		const owner = await api('GET', '/community/members?search=', { token: cm.token })
		const ownerUuid = owner.body.data.members.find(
			(m: { role: string }) => m.role === 'owner',
		)?.uuid
		expect(ownerUuid).toBeDefined()
		const removeOwner = await api('DELETE', '/community/member/remove', {
			token: cm.token,
			body: { uuids: [ownerUuid] },
		})
		expect(removeOwner.status).toBe(403)
		expect((await api('POST', '/community/member/ban', { token: cm.token, body: {} })).status).toBe(
			400,
		)
		const stranger = await newUser(await newCommunity('ban-other'))
		const foreign = await api('POST', '/community/member/ban', {
			token: cm.token,
			body: { uuid: stranger.uuid },
		})
		expect(foreign.status).toBe(404)
	})
})
