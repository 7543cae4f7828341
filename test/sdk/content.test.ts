// The vendor SDKs, unchanged, on the content routes of issue 43: attachments in
// feed-js's own form (an image post), a feed poll made, voted, extended and read through
// PollClient, link previews (feed-js decodeURL, chat-js decodeUrl) from a local page,
// device registration without x-platform-code (feed-js) and client logs (chat-js).
// Both SDKs keep their tokens in one process-wide localStorage: each step re-runs
// initiateUser for the user about to act. Some SDK methods swallow failures and resolve
// undefined, so every check is on the data answered.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
	AddPostRequest,
	AttachmentType,
	DecodeURLRequest,
	LMFeedPostAttachment,
	LMFeedPostAttachmentMeta,
	RegisterDeviceRequest,
} from '@likeminds.community/feed-js'
import { newCommunity, type TestCommunity } from '../support/community'
import { sql } from '../support/db'
import { chatClient, feedSignedIn } from '../support/sdk'

const pages: ReturnType<typeof Bun.serve> = Bun.serve({
	port: 0,
	hostname: '127.0.0.1',
	fetch: (request) =>
		new Response(
			`<html><head><meta property="og:title" content="Page ${new URL(request.url).pathname}">` +
				'<meta property="og:description" content="described"></head></html>',
			{ headers: { 'content-type': 'text/html' } },
		),
})
afterAll(() => pages.stop(true))

let community: TestCommunity

/** feed-js client signed in as `uuid` (the last initiateUser wins the shared storage). */
async function feedAs(uuid: string) {
	return (await feedSignedIn(community.apiKey, uuid)).client
}

beforeAll(async () => {
	community = await newCommunity('sdk-content')
})

describe('feed-js, unchanged', () => {
	test('addPost with an image attachment in its own form', async () => {
		const client = await feedAs('sdk-author')
		const meta = LMFeedPostAttachmentMeta.builder()
			.setUrl('https://cdn.example.com/photo.jpg')
			.setFormat('jpg')
			.setSize(2048)
			.setName('photo.jpg')
			.build()
		const attachment = LMFeedPostAttachment.builder()
			.setType(AttachmentType.IMAGE)
			.setMetadata(meta as LMFeedPostAttachmentMeta)
			.build()
		const reply = await client.addPost(
			AddPostRequest.builder()
				.setText('a photo')
				.setAttachments([attachment])
				.setTopicIds([])
				.build(),
		)
		expect(reply.success).toBe(true)
		const [parsed] = reply.data.post.attachments
		expect(parsed?.type).toBe(AttachmentType.IMAGE)
		expect(parsed?.metaData).toMatchObject({
			url: 'https://cdn.example.com/photo.jpg',
			format: 'jpg',
			size: 2048,
			name: 'photo.jpg',
		})
	})

	test('a poll post, then submitPollVote, addPollOption and getPollVotes', async () => {
		const author = await feedAs('sdk-poll-author')
		const pollMeta = LMFeedPostAttachmentMeta.builder()
			.setTitle('Lunch?')
			.setOptions(['Pizza', 'Salad'])
			.setExpiryTime(Date.now() + 3_600_000)
			.setMultipleSelectState('exactly' as never)
			.setMultipleSelectNumber(1)
			.setPollType('instant' as never)
			.setIsAnonymous(false)
			.setAllowAddOption(true)
			.build()
		const created = await author.addPost(
			AddPostRequest.builder()
				.setText('poll time')
				.setAttachments([
					LMFeedPostAttachment.builder()
						.setType(AttachmentType.POLL)
						.setMetadata(pollMeta as LMFeedPostAttachmentMeta)
						.build(),
				])
				.setTopicIds([])
				.build(),
		)
		expect(created.success).toBe(true)
		const pollId = created.data.post.attachments[0]?.metaData.entityId as string
		const widget = created.data.widgets[pollId]
		if (!widget) throw new Error('the poll widget is missing from the answer')
		expect(widget.metadata.title).toBe('Lunch?')
		const [pizza] = (widget.metadata.options as { id: string }[]).map((o) => o.id)

		const voter = await feedAs('sdk-poll-voter')
		const voted = await voter.submitPollVote({ pollId, votes: [pizza as string] })
		expect(voted.data.widget[pollId].lmMeta.options[0]).toMatchObject({
			text: 'Pizza',
			isSelected: true,
			voteCount: 1,
		})
		const added = await voter.addPollOption({ pollId, text: 'Soup' })
		expect(
			added.data.widget[pollId]?.metadata.options.map((o: { text: string }) => o.text),
		).toEqual(['Pizza', 'Salad', 'Soup'])
		const votes = await voter.getPollVotes({
			pollId,
			votes: [pizza as string],
			page: 1,
			pageSize: 10,
		})
		const me = (
			await sql`select uuid from users where community_id = ${community.communityId} and user_unique_id = 'sdk-poll-voter'`
		)[0]?.uuid
		expect(votes.data.votes).toEqual([{ id: pizza as string, users: [me] }])
		expect(votes.data.users[me].name).toBe('sdk-poll-voter')
	})

	test('decodeURL answers the page’s og tags', async () => {
		const client = await feedAs('sdk-previewer')
		const reply = await client.decodeURL(
			DecodeURLRequest.builder().setURL(`http://127.0.0.1:${pages.port}/feed-page`).build(),
		)
		expect(reply.data.ogTags).toEqual({
			title: 'Page /feed-page',
			description: 'described',
			image: '',
			url: `http://127.0.0.1:${pages.port}/feed-page`,
		})
	})

	test('validateRegisterDeviceRequest (no x-platform-code) registers the device as web', async () => {
		const client = await feedAs('sdk-device')
		const reply = await client.validateRegisterDeviceRequest(
			RegisterDeviceRequest.builder().setToken('push-token-1').setDeviceId('browser-1').build(),
		)
		expect(reply.success).toBe(true)
		const [row] = await sql`
			select d.token, d.platform from devices d
			join users u on u.community_id = d.community_id and u.id = d.user_id
			where d.community_id = ${community.communityId} and d.device_id = 'browser-1'`
		expect(row).toEqual({ token: 'push-token-1', platform: 'rt' })
		// registerDevice() sends a bare GET of the same path: the caller's devices. (The SDK
		// unwraps `data` twice here, so only its success is visible through it.)
		const listed = await client.registerDevice()
		expect(listed.success).toBe(true)
	})
})

describe('chat-js, unchanged', () => {
	test('decodeUrl and pushLogs', async () => {
		const chat = chatClient()
		const session = await chat.initiateUser({
			userName: 'Chatty',
			userUniqueId: 'sdk-chatty',
			isGuest: false,
			apiKey: community.apiKey,
		})
		expect(session.success).toBe(true)
		const preview = await chat.decodeUrl({ url: `http://127.0.0.1:${pages.port}/chat-page` })
		expect(preview.data.ogTags.title).toBe('Page /chat-page')
		const logs = await chat.pushLogs({
			logs: [
				{
					timestamp: Date.now(),
					deviceMeta: {
						os: 'web',
						versionOS: '1',
						deviceName: 'test',
						screenHeight: 1,
						screenWidth: 1,
						wifi: true,
					},
					stackTrace: { exception: 'Error: sdk test', trace: 'at test' },
					severity: 4,
				},
			],
		})
		expect(logs.success).toBe(true)
	})
})
