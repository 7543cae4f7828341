// Both vendor SDKs, unchanged, reach plaza through the harness: a session begins and a
// feed page comes back in the SDK's parsed (camelCase) form.
import { describe, expect, test } from 'bun:test'
import { InitiateUserRequest } from '@likeminds.community/feed-js'
import { newCommunity, newUser } from '../support/community'
import { api } from '../support/http'
import { chatClient, feedClient } from '../support/sdk'

describe('the vendor SDKs against plaza', () => {
	test('feed-js starts a session and reads the universal feed with a post in it', async () => {
		const community = await newCommunity()
		const author = await newUser(community)
		const posted = await api('POST', '/feed/post', {
			token: author.token,
			body: { text: 'hello sdk' },
		})
		expect(posted.status).toBe(200)
		const feed = feedClient(community.apiKey)
		const session = await feed.initiateUser(
			InitiateUserRequest.builder()
				.setUUID('sdk-alice')
				.setUserName('Alice')
				.setIsGuest(false)
				.setApiKey(community.apiKey)
				.build(),
		)
		expect(session.success).toBe(true)
		expect(session.data?.user.name).toBe('Alice')
		const page = await feed.getFeed({ page: 1, pageSize: 10 } as never)
		expect(page.success).toBe(true)
		expect(page.data?.posts.map((post) => post.text)).toEqual(['hello sdk'])
	})

	test('chat-js starts a session with the API key in its request', async () => {
		const community = await newCommunity()
		const chat = chatClient()
		const session = await chat.initiateUser({
			userName: 'Bob',
			userUniqueId: 'sdk-bob',
			isGuest: false,
			apiKey: community.apiKey,
		})
		expect(session.success).toBe(true)
		expect(session.data?.user?.name).toBe('Bob')
	})
})
