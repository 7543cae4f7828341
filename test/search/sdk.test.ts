// The vendor SDKs, unchanged, against search, mentions, chosen topics and the chat home:
// feed-js searchPosts, getTaggingList (PostClient and HelperClient), updateUserTopics,
// getUserTopics; chat-js searchMembers, getTaggingList, searchChatroom,
// searchConversation, getHomeFeed, getExploreFeed. Both SDKs keep their tokens in one
// process-wide localStorage, so each acting user starts their session again first.
import { beforeAll, describe, expect, test } from 'bun:test'
import {
	GetTaggingListRequest,
	GetUserTopicsRequest,
	type LMFeedClient,
	SearchPostsRequest,
	UpdateUserTopicsRequest,
} from '@likeminds.community/feed-js'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createTopic } from '../support/content'
import { api } from '../support/http'
import { chatClient, feedSignedIn } from '../support/sdk'

let community: TestCommunity
let cm: TestUser
let poster: TestUser

async function feedAs(
	uniqueId: string,
	name: string,
): Promise<{ feed: LMFeedClient; uuid: string }> {
	const { client, session } = await feedSignedIn(community.apiKey, uniqueId, name)
	return { feed: client, uuid: session.user.sdkClientInfo.uuid as string }
}

async function chatAs(uniqueId: string, name: string) {
	const chat = chatClient()
	const session = await chat.initiateUser({
		userName: name,
		userUniqueId: uniqueId,
		isGuest: false,
		apiKey: community.apiKey,
	})
	expect(session.success).toBe(true)
	return chat
}

beforeAll(async () => {
	community = await newCommunity()
	cm = await newUser(community, { role: 'cm', name: 'Carla Manager' })
	poster = await newUser(community, { name: 'Petra Poster' })
})

describe('feed-js', () => {
	test('searchPosts finds a post by a word, in the feed shape', async () => {
		const { feed } = await feedAs('sdk-searcher', 'Sam Searcher')
		const made = await api('POST', '/feed/post', {
			token: poster.token,
			body: { text: 'hedgehog parade downtown' },
		})
		expect(made.status).toBe(200)
		const found = await feed.searchPosts(
			SearchPostsRequest.builder()
				.setSearch('hedgehog')
				.setSearchType('text')
				.setPage(1)
				.setPageSize(10)
				.build(),
		)
		expect(found.success).toBe(true)
		expect(found.data?.posts.map((p) => p.text)).toEqual(['hedgehog parade downtown'])
		expect(found.data?.posts[0]?.id).toBe(made.body.data.post._id)
		expect(Object.values(found.data?.users ?? {}).map((u) => u.name)).toEqual(['Petra Poster'])
	})

	test('getTaggingList (PostClient and HelperClient) lists members by name', async () => {
		const { feed } = await feedAs('sdk-tagger', 'Tina Tagger')
		const list = await feed.getTaggingList(
			GetTaggingListRequest.builder().setSearchName('petr').setPage(1).setPageSize(10).build(),
		)
		expect(list.success).toBe(true)
		expect(list.data?.members.map((m) => m.name)).toEqual(['Petra Poster'])
		expect(list.data?.members[0]?.uuid).toBe(poster.uuid)
		// the helper's form sends no search: everyone, the CM first
		const helper = (feed as unknown as { helperClient: { getTaggingList(): Promise<any> } })
			.helperClient
		const all = await helper.getTaggingList()
		expect(all.success).toBe(true)
		expect(all.data.members[0].name).toBe('Carla Manager')
		expect(all.data.members.map((m: { name: string }) => m.name)).toContain('Petra Poster')
	})

	test('updateUserTopics and getUserTopics', async () => {
		const cooking = await createTopic(cm, 'Cooking')
		const travel = await createTopic(cm, 'Travel')
		const { feed, uuid } = await feedAs('sdk-chooser', 'Chris Chooser')
		const updated = await feed.updateUserTopics(
			UpdateUserTopicsRequest.builder()
				.setUuid(uuid)
				.setTopicsIds({ [cooking]: true, [travel]: false })
				.build(),
		)
		expect(updated.success).toBe(true)
		const read = await feed.getUserTopics(GetUserTopicsRequest.builder().setUuids([uuid]).build())
		expect(read.success).toBe(true)
		expect(read.data?.userTopics[uuid]).toEqual([cooking])
		expect(read.data?.topics[cooking]?.name).toBe('Cooking')
	})
})

describe('chat-js', () => {
	test('searchMembers and getTaggingList', async () => {
		const chat = await chatAs('sdk-chatter', 'Charlie Chatter')
		const members = await chat.searchMembers({
			search: 'petra',
			searchType: 'name',
			page: 1,
			pageSize: 10,
		})
		expect(members?.success).toBe(true)
		expect(members.data.members.map((m: { name: string }) => m.name)).toEqual(['Petra Poster'])
		const tags = await chat.getTaggingList({ searchName: 'carl', page: 1, pageSize: 10 } as never)
		expect(tags?.success).toBe(true)
		expect(tags.data?.communityMembers?.map((m) => m.name)).toEqual(['Carla Manager'])
	})

	test('searchChatroom, searchConversation, getHomeFeed, getExploreFeed', async () => {
		const room = await newRoom(cm, { title: 'Birdwatchers' })
		const chat = await chatAs('sdk-birder', 'Bea Birder')
		// a second login of Bea's (through HTTP) joins the room for her
		const bea = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: 'sdk-birder', user_name: 'Bea Birder' },
		})
		await follow({ token: bea.body.data.access_token } as TestUser, room.id)
		await say(cm, room.id, 'a heron by the lake')

		const rooms = await chat.searchChatroom({
			search: 'bird',
			searchType: 'name',
			followStatus: false,
			page: 1,
			pageSize: 10,
		} as never)
		expect(rooms?.success).toBe(true)
		expect(rooms.data?.chatrooms.map((r) => r.title)).toEqual(['Birdwatchers'])
		const messages = await chat.searchConversation({
			search: 'heron',
			followStatus: true,
			page: 1,
			pageSize: 10,
		} as never)
		expect(messages?.success).toBe(true)
		expect(messages.data?.conversations.map((c: any) => c.answer)).toEqual(['a heron by the lake'])
		const home = await chat.getHomeFeed({
			page: 1,
			pageSize: 10,
			chatroomTypes: [0, 7, 10],
		} as never)
		expect(home?.success).toBe(true)
		expect(home.data?.chatroomsData.map((r) => r.title)).toEqual(['Birdwatchers'])
		const explore = await chat.getExploreFeed({ orderType: 0, page: 1 })
		expect(explore?.success).toBe(true)
		expect(explore.data?.chatrooms.map((r) => r.title)).toContain('Birdwatchers')
	})
})
