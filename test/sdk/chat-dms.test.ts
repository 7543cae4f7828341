// chat-js, unchanged, against plaza: every DirectMessage method but fetchDMFeed (that one
// is /chatroom/sync), reactions, read and seen, share, topic, invites and chatbots.
// Both SDKs keep tokens in one process-wide localStorage, so each step first runs
// initiateUser for the member about to act; methods typed Promise<any> resolve
// undefined on a 4xx, so every check is on the data that came back.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'
import { chatClient } from '../support/sdk'

let community: TestCommunity
let cm: TestUser
const chat = chatClient()

interface SdkUser {
	id: string
	uuid: string
	sdkClientInfo: { uuid: string }
}

/** initiateUser as this member: their tokens are the ones chat-js sends next. */
async function as(uniqueId: string, name = uniqueId): Promise<SdkUser> {
	const session = await chat.initiateUser({
		userName: name,
		userUniqueId: uniqueId,
		isGuest: false,
		apiKey: community.apiKey,
	})
	expect(session.success).toBe(true)
	return session.data?.user as unknown as SdkUser
}

beforeAll(async () => {
	community = await newCommunity('sdk-chat-rest')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
})

describe('DirectMessage', () => {
	test('tab, status, limit, create (by id and uuid), request, block, feed', async () => {
		const ben = await as('sdk-ben', 'Ben')
		const ana = await as('sdk-ana', 'Ana')
		await api('PUT', '/community/dm/settings', {
			token: cm.token,
			body: { daily_limit: 5, requests_required: true },
		})

		const tab = await chat.checkDMTab()
		expect(tab.data).toMatchObject({ hideDmTab: false, isCm: false, unreadDmCount: 0 })
		const status = await chat.checkDMStatus({ requestFrom: 'dm_feed' })
		expect(status.data).toEqual({ showDm: true, cta: 'route://dm_feed' })
		const canDm = await chat.canDmFeed({ reqFrom: 'member_profile', memberId: Number(ben.id) })
		expect(canDm.data.cta).toBe(`route://create_dm?member_id=${ben.id}&uuid=${ben.uuid}`)
		const limit = await chat.checkDMLimit({ memberId: Number(ben.id) })
		expect(limit.data as unknown).toEqual({
			isRequestDmLimitExceeded: false,
			newRequestDmTimestamp: null,
			userDmLimit: { state: 1, duration: 'day', numberInDuration: 5 },
			chatroomId: null,
		})

		const created = await chat.createDMChatroom({ memberId: Number(ben.id) })
		const room = created.data.chatroom as unknown as Record<string, any>
		expect(room).toMatchObject({ type: 10, chatRequestState: null, memberCanMessage: false })
		expect(room.chatroomWithUser.uuid).toBe(ben.uuid)
		const byUuid = await chat.createDMChatroomWithUuid({ uuid: ben.uuid })
		expect(byUuid.data.chatroom.id).toBe(room.id)
		const limitNow = await chat.checkDMLimitWithUuid({ uuid: ben.uuid })
		expect(limitNow.data.chatroomId).toBe(Number(room.id))
		const withRoom = await chat.canDmFeedWithUuid({
			reqFrom: 'member_profile',
			uuid: ben.uuid,
			chatroomId: Number(room.id),
		})
		expect(withRoom.data.cta).toBe(`route://chatroom_detail?chatroom_id=${room.id}`)

		const request = await chat.sendDMRequest({
			chatroomId: Number(room.id),
			chatRequestState: 0,
			text: 'hi Ben',
		})
		expect(request.data.conversation.answer).toBe('hi Ben')
		await as('sdk-ben', 'Ben')
		const benTab = await chat.checkDMTab()
		expect(benTab.data.unreadDmCount).toBe(1)
		const accepted = await chat.sendDMRequest({ chatroomId: Number(room.id), chatRequestState: 1 })
		expect(accepted.success).toBe(true)
		const feed = await chat.getDMFeed({ community_id: community.communityId })
		const [listed] = feed.data.chatroomsData
		expect(listed).toMatchObject({ id: room.id, chatRequestState: 1, memberCanMessage: true })
		// The chat home asked for DM rooms only (chat-js fetchDMFeed: /chatroom/sync, type 10).
		const synced = await chat.fetchDMFeed({
			page: 1,
			pageSize: 10,
			chatroomTypes: [10],
			maxTimestamp: Date.now(),
			minTimestamp: 0,
		})
		expect(synced.data.chatroomsData.map((r) => [r.id, r.type])).toEqual([[room.id, 10]])

		const blocked = await chat.blockMember({ chatroomId: Number(room.id), status: 0 })
		expect(blocked.data).toMatchObject({ isBlocked: true })
		const refused = await api('POST', '/conversation', {
			token: (
				await api('POST', '/sdk/initiate', {
					apiKey: community.apiKey,
					body: { user_unique_id: 'sdk-ana', user_name: 'Ana' },
				})
			).body.data.access_token,
			body: { chatroom_id: room.id, text: 'still there?' },
		})
		expect(refused.status).toBe(403)
		const unblocked = await chat.blockMember({ chatroomId: Number(room.id), status: 1 })
		expect(unblocked.data).toMatchObject({ isBlocked: false })
		expect(ana.uuid).toBeDefined()
	})
})

describe('ChatroomData and HomeFeedClient', () => {
	test('reactions, mark_read, the three seen forms, share, topic, chatbots', async () => {
		const room = (await api('POST', '/chatroom', { token: cm.token, body: { title: 'SDK room' } }))
			.body.data.chatroom
		const cal = await as('sdk-cal', 'Cal')
		expect(
			(
				await chat.followChatroom({
					collabcardId: Number(room.id),
					memberId: Number(cal.id),
					value: true,
				} as never)
			).success,
		).toBe(true)
		const posted = await api('POST', '/conversation', {
			token: cm.token,
			body: { chatroom_id: room.id, text: 'react here' },
		})
		const conversationId = Number(posted.body.data.id)
		expect(
			(await chat.putReaction({ chatroomId: Number(room.id), conversationId, reaction: '👍' }))
				.success,
		).toBe(true)
		const page = await api('GET', `/conversation?chatroom_id=${room.id}`, { token: cm.token })
		const reacted = page.body.data.conversations.find((c: any) => c.id === String(conversationId))
		expect(reacted.reactions).toEqual([
			{ member: expect.objectContaining({ uuid: cal.uuid }), reaction: '👍' },
		])
		expect(
			(await chat.deleteReaction({ chatroomId: Number(room.id), conversationId, reaction: '👍' }))
				.success,
		).toBe(true)
		const unread = async () =>
			(await chat.getChatroom({ chatroomId: Number(room.id) } as never)).data.unreadMessages
		expect(await unread()).toBe(1)
		expect((await chat.markReadChatroom({ chatroomId: Number(room.id) })).success).toBe(true)
		expect(await unread()).toBe(0)
		const seenForms = [
			() =>
				chat.crSeenFn({
					collabcardId: Number(room.id),
					memberId: Number(cal.id),
					collabcardType: 1,
				}),
			() =>
				chat.chatroomSeen({
					collabcardId: Number(room.id),
					memberId: Number(cal.id),
					collabcardType: 1,
				}),
			() =>
				chat.chatroomSeenWithUuid({
					collabcardId: Number(room.id),
					uuid: cal.uuid,
					collabcardType: 1,
				}),
		]
		for (const seen of seenForms) {
			await api('POST', '/conversation', {
				token: cm.token,
				body: { chatroom_id: room.id, text: 'more' },
			})
			expect(await unread()).toBe(1)
			const reply = await seen()
			expect(reply?.data).toEqual({ unreadMessages: 0 })
			expect(await unread()).toBe(0)
		}
		const share = await chat.shareChatroomUrl({
			chatroomId: Number(room.id),
			domain: 'example.com',
		})
		expect(share.data.communityShare.publicLink).toContain(`/collabcard/${room.id}`)
		const bots = await chat.getAIChatbots({ page: 1, pageSize: 10 })
		expect(bots.data).toEqual({ page: 1, totalPages: 0, totalChatbots: 0, users: [] })

		const manager = await as('sdk-cleo-cm', 'Cleo too')
		await api('PATCH', '/moderation/rights', {
			token: cm.token,
			body: { uuid: manager.uuid, is_cm: true },
		})
		const topic = await chat.setChatroomTopic({ chatroomId: Number(room.id), conversationId })
		expect(topic.success).toBe(true)
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: cm.token })).body.data.chatroom
				.topic_id,
		).toBe(String(conversationId))
	})

	test('invites: send (CM), list and accept', async () => {
		await as('sdk-boss', 'Boss')
		const boss = (
			await api('POST', '/sdk/initiate', {
				apiKey: community.apiKey,
				body: { user_unique_id: 'sdk-boss', user_name: 'Boss' },
			})
		).body.data.user
		await api('PATCH', '/moderation/rights', {
			token: cm.token,
			body: { uuid: boss.uuid, is_cm: true },
		})
		const room = (
			await api('POST', '/chatroom', {
				token: cm.token,
				body: { title: 'Hidden', is_secret: true },
			})
		).body.data.chatroom
		await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, uuid: boss.uuid, value: true },
		})
		const dee = await as('sdk-dee', 'Dee')
		await as('sdk-boss', 'Boss')
		const sent = await chat.sendInvites({
			chatroomId: Number(room.id),
			isSecret: true,
			chatroomParticipants: [Number(dee.id)],
		})
		expect(sent?.data).toEqual({ invitedCount: 1 })
		await as('sdk-dee', 'Dee')
		const invites = await chat.getInvites({ channelType: 1, page: 1, pageSize: 10 })
		expect(invites.data.userInvites[0].channel.id).toBe(room.id)
		const accepted = await chat.inviteAction({ channelId: room.id, inviteStatus: 1 })
		expect(accepted?.data).toEqual({ chatroomId: room.id, inviteStatus: 1 })
		const seated = await chat.getChatroom({ chatroomId: Number(room.id) } as never)
		expect(seated.data.chatroom.followStatus).toBe(true)
	})
})
