// The member methods of both vendor SDKs, unchanged, against plaza: feed-js's
// getMemberRights, updateMemberRights, getMemberState and getAllMembers; chat-js's
// getProfile, editProfile, getMemberState, getMemberChatroom, getQuestions,
// getAllMembers, dmAllMembers, allMembers and leaveCommunity. Both SDKs keep their
// tokens in one process-wide localStorage: a second user re-runs initiateUser first.
// chat-js resolves `undefined` on a refusal, so every check is on the data.
import { beforeAll, describe, expect, test } from 'bun:test'
import {
	GetAllMembersRequest,
	GetMemberRightsRequest,
	UpdateMemberRightsRequest,
} from '@likeminds.community/feed-js'
import { newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'
import { chatClient, feedSignedIn } from '../support/sdk'

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('sdk-members')
	cm = await newUser(community, { role: 'cm', name: 'Carol CM' })
})

describe('feed-js member methods', () => {
	const feedAs = async (uniqueId: string, name: string) => {
		const { client, session } = await feedSignedIn(community.apiKey, uniqueId, name)
		return { feed: client, user: session.user }
	}

	test('getMemberState, getAllMembers, getMemberRights and updateMemberRights (is_c_m, rights)', async () => {
		const { feed, user } = await feedAs('feed-fiona', 'Fiona')
		const state = await feed.getMemberState()
		expect(state.success).toBe(true)
		expect(state.data?.member.uuid).toBe(user?.uuid as string)
		expect(state.data?.state).toBe(4)
		expect(state.data?.memberRights.find((r) => r.state === 9)?.isSelected).toBe(true)

		const all = await feed.getAllMembers(GetAllMembersRequest.builder().setPage(1).build())
		expect(all.success).toBe(true)
		expect(all.data?.members.map((m) => m.name)).toEqual(['Carol CM', 'Fiona'])
		expect(all.data?.totalMembers).toBe(2)
		expect(all.data?.adminsCount).toBe(1)

		const own = await feed.getMemberRights(
			GetMemberRightsRequest.builder()
				.setUuid(user?.uuid as string)
				.setIsCM(false)
				.build(),
		)
		expect(own.success).toBe(true)
		expect(own.data?.member.uuid).toBe(user?.uuid as string)
		expect(own.data?.rights.every((r) => r.isSelected)).toBe(true)

		// The CM (its own login) removes Fiona's right to post, then makes her a CM.
		const { feed: asCm } = await feedAs(cm.uniqueId, 'Carol CM')
		const rights = (own.data?.rights ?? []).map((r) => ({ ...r, isSelected: r.id !== 9 }))
		const update = await asCm.updateMemberRights(
			UpdateMemberRightsRequest.builder()
				.setUuid(user?.uuid as string)
				.setIsCM(false)
				.setRights(rights)
				.setCustomTitle('')
				.build(),
		)
		expect(update.success).toBe(true)
		const after = await asCm.getMemberRights(
			GetMemberRightsRequest.builder()
				.setUuid(user?.uuid as string)
				.setIsCM(false)
				.build(),
		)
		expect(after.data?.rights.find((r) => r.id === 9)?.isSelected).toBe(false)
		expect(after.data?.rights.find((r) => r.id === 10)?.isSelected).toBe(true)
		const grant = await asCm.updateMemberRights(
			UpdateMemberRightsRequest.builder()
				.setUuid(user?.uuid as string)
				.setIsCM(true)
				.build(),
		)
		expect(grant.success).toBe(true)
		const fiona = await api('GET', `/moderation/rights?uuid=${user?.uuid}`, { token: cm.token })
		expect(fiona.body.data.role).toBe('cm')
	})
})

describe('chat-js member methods', () => {
	const chatAs = async (uniqueId: string, userName: string) => {
		const chat = chatClient()
		const session = await chat.initiateUser({
			userName,
			userUniqueId: uniqueId,
			isGuest: false,
			apiKey: community.apiKey,
		})
		expect(session.success).toBe(true)
		return { chat, user: session.data.user }
	}

	test('getMemberState, getProfile, editProfile, getQuestions', async () => {
		const { chat, user } = await chatAs('chat-gus', 'Gus')
		const state = await chat.getMemberState()
		expect(state?.data?.member?.uuid).toBe(user.uuid)
		expect(state?.data?.memberRights?.length).toBeGreaterThan(0)
		const edited = await chat.editProfile({
			userUniqueId: 'chat-gus',
			userName: 'Gustav',
			imageUrl: 'https://img.example/g.png',
		})
		expect(edited?.data?.member?.name).toBe('Gustav')
		const profile = await chat.getProfile({ userId: user.id })
		expect(profile?.data?.member).toMatchObject({
			uuid: user.uuid,
			name: 'Gustav',
			imageUrl: 'https://img.example/g.png',
		})
		const questions = await chat.getQuestions()
		expect(questions?.data?.questions).toEqual([])
	})

	test('getAllMembers, dmAllMembers, allMembers and getMemberChatroom', async () => {
		const { chat, user } = await chatAs('chat-hana', 'Hana')
		const room = await newRoom(cm, { title: 'Chat room', uuids: [user.uuid] })
		await newRoom(cm, { title: 'Not hers' })

		const all = await chat.getAllMembers({ page: 1 })
		expect(all?.data?.members?.map((m: { name: string }) => m.name)).toContain('Hana')
		const cms = await chat.getAllMembers({ page: 1, memberState: 1 })
		expect(cms?.data?.members?.map((m: { name: string }) => m.name)).toContain('Carol CM')
		expect(cms?.data?.members?.every((m: { state: number }) => m.state === 1)).toBe(true)
		expect(cms?.data?.members?.map((m: { name: string }) => m.name)).not.toContain('Hana')
		const inRoom = await chat.getAllMembers({ page: 1, chatroomId: Number(room.id) })
		expect(inRoom?.data?.members?.map((m: { name: string }) => m.name).sort()).toEqual([
			'Carol CM',
			'Hana',
		])
		const dm = await chat.dmAllMembers({ community_id: community.communityId, page: 1 })
		expect(dm?.data?.members?.length).toBeGreaterThanOrEqual(2)
		const allOfCommunity = await chat.allMembers({ community_id: community.communityId, page: 1 })
		expect(allOfCommunity?.data?.totalMembers).toBe(dm?.data?.totalMembers)
		const rooms = await chat.getMemberChatroom({ userId: user.id, state: 1, page: 1 })
		expect(rooms?.data?.chatrooms?.map((r: { title: string }) => r.title)).toEqual(['Chat room'])
	})

	test('leaveCommunity: the session ends at once; starting it again comes back', async () => {
		const { chat, user } = await chatAs('chat-ivy', 'Ivy')
		const left = await chat.leaveCommunity({ uuids: [user.uuid] })
		expect(left?.data?.removed).toEqual([user.uuid])
		const directory = await api('GET', '/community/member?page_size=100', { token: cm.token })
		expect(directory.body.data.members.map((m: { uuid: string }) => m.uuid)).not.toContain(
			user.uuid,
		)
		const { user: again } = await chatAs('chat-ivy', 'Ivy')
		expect(again.uuid).toBe(user.uuid)
		const back = await api('GET', '/community/member?page_size=100', { token: cm.token })
		expect(back.body.data.members.map((m: { uuid: string }) => m.uuid)).toContain(user.uuid)
	})
})
