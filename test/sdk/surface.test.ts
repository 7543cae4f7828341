// The whole request-sending surface of the vendor SDKs (DESIGN §16), unchanged, against
// plaza: one call per method with valid arguments, and a check that the data its
// declared response type promises came back (chat-js methods typed Promise<any> resolve
// undefined on a refusal, so a bare "did not throw" proves nothing). The per-feature SDK
// tests beside this file go deeper; this one is the table that says nothing is missing.
//
// Counted from the pinned d.ts files: LMFeedClient declares 73 methods, 49 of which send
// a request; 42 are called here, the other 7 are moderation (below). LMChatClient's page
// interfaces declare 70; 66 are called here, 2 are moderation and 2 Firebase (below).
//
// Left out on purpose:
// - Moderation (feed-js getReportTags, postReport, getReports, getReportsForPostAndComments,
//   getPendingPostsForModeration, updateReportStatus, hidePost; chat-js getReportTags,
//   pushReport): their routes are being built beside this file; they join this table when
//   they land.
// - Methods that send no request to plaza: feed-js initializeDatabase, saveTemporaryPost,
//   getTemporaryPost, deleteTemporaryPost (IndexedDB drafts), the builders, setters and
//   token getters of both clients, getNetworkLibrary, setLMSDKCallbacks, the static
//   getIdentityPoolId/getBucketId/getRegion (constants), chat-js setGipghyApiKey and
//   getGiphyApiKey (Giphy, a third party).
// - Methods that need a third-party service: chat-js fbInstance and homeFeedListener
//   (Firebase realtime database listeners).
//
// Declared fields plaza does not answer yet, so not asserted here: `topics` and `widgets`
// of getFeed/getFeedWithSearchParams/getPersonalisedFeed (the byte-spliced feed pages),
// `topics`/`userTopics` of getPostLikes (and its `users` is a map by uuid where the type
// says an array), `chatroomLocal` of createDMChatroom.
//
// Both SDKs keep their tokens in one process-wide localStorage, so each step first runs
// initiateUser for the member about to act.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
	AddCommentRequest,
	AddPostRequest,
	AttachmentType,
	DecodeURLRequest,
	DeleteCommentRequest,
	DeletePostRequest,
	EditCommentRequest,
	EditPostRequest,
	GetAllMembersRequest,
	GetCommentLikesRequest,
	GetCommentRequest,
	GetFeedRequest,
	GetMemberRightsRequest,
	GetNotificationFeedRequest,
	GetPersonalisedFeedRequest,
	GetPostLikesRequest,
	GetPostRequest,
	GetTaggingListRequest,
	GetTopicsRequest,
	GetUserTopicsRequest,
	InitiateUserRequest,
	LikeCommentRequest,
	LikePostRequest,
	LMFeedPostAttachment,
	LMFeedPostAttachmentMeta,
	LogoutRequest,
	MarkReadNotificationRequest,
	PinPostRequest,
	PostSeenRequest,
	RegisterDeviceRequest,
	ReplyCommentRequest,
	SavePostRequest,
	SearchPostsRequest,
	UpdateMemberRightsRequest,
	UpdateUserTopicsRequest,
	ValidateUserRequest,
} from '@likeminds.community/feed-js'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createTopic } from '../support/content'
import { api } from '../support/http'
import { chatClient, feedClient } from '../support/sdk'

// A local page for the link-preview methods (never the internet).
const pages = Bun.serve({
	port: 0,
	hostname: '127.0.0.1',
	fetch: () =>
		new Response('<html><head><meta property="og:title" content="Surface page"></head></html>', {
			headers: { 'content-type': 'text/html' },
		}),
})
afterAll(() => pages.stop(true))
const pageUrl = () => `http://127.0.0.1:${pages.port}/surface`

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('sdk-surface')
	cm = await newUser(community, { role: 'cm', name: 'Surface CM' })
})

// biome-ignore lint/suspicious/noExplicitAny: the SDKs' answers are checked field by field
type Any = any

describe('feed-js LMFeedClient', () => {
	const feed = () => feedClient(community.apiKey)
	const session: Record<string, Any> = {}
	/** initiateUser as this member; the shared storage now holds their tokens. */
	const as = async (uniqueId: string) => {
		const client = feed()
		const reply = await client.initiateUser(
			InitiateUserRequest.builder()
				.setUUID(uniqueId)
				.setUserName(uniqueId)
				.setIsGuest(false)
				.setApiKey(community.apiKey)
				.build(),
		)
		expect(reply.success).toBe(true)
		session[uniqueId] = reply.data
		// feed-js keeps the pair in memory; an app stores it for the next launch (and
		// logoutUser reads it from there).
		client.setAccessTokenInLocalStorage(reply.data?.accessToken as string)
		client.setRefreshTokenInLocalStorage(reply.data?.refreshToken as string)
		return client
	}
	const state: Record<string, Any> = {}

	test('initiateUser', async () => {
		await as('feed-ann')
		expect(session['feed-ann'].user.name).toBe('feed-ann')
		expect(session['feed-ann'].accessToken).toBeString()
		expect(session['feed-ann']).toMatchObject({ appAccess: true, hasAnswers: true })
		expect(session['feed-ann'].community.id).toBe(community.communityId)
	})

	test('validateUser', async () => {
		const client = await as('feed-ann')
		const reply = await client.validateUser(
			ValidateUserRequest.builder()
				.setAccessToken(session['feed-ann'].accessToken)
				.setRefreshToken(session['feed-ann'].refreshToken)
				.build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.user.uuid).toBe(session['feed-ann'].user.uuid)
		expect(reply.data).toMatchObject({ appAccess: true, hasAnswers: true })
	})

	test('editProfile', async () => {
		const client = await as('feed-ann')
		const reply = (await client.editProfile({
			userUniqueId: 'feed-ann',
			userName: 'Ann Edited',
			imageUrl: 'https://img.example/ann.png',
		} as never)) as Any
		expect(reply.success).toBe(true)
		const profile = await api(
			'GET',
			`/community/member/profile?uuid=${session['feed-ann'].user.uuid}`,
			{
				token: cm.token,
			},
		)
		expect(JSON.stringify(profile.body)).toContain('Ann Edited')
	})

	test('getTopics', async () => {
		state.topicId = await createTopic(cm, 'Surface topic')
		const client = await as('feed-ann')
		const reply = await client.getTopics(
			GetTopicsRequest.builder().setIsEnabled(null).setPage(1).setPageSize(10).build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.topics.map((t) => t.name)).toContain('Surface topic')
		expect(reply.data?.childTopics).toEqual({})
		expect(reply.data?.widgets as unknown).toEqual({})
	})

	test('addPost', async () => {
		const client = await as('feed-ann')
		const reply = await client.addPost(
			AddPostRequest.builder()
				.setText('surface post about zebras')
				.setTopicIds([state.topicId])
				.setAttachments([
					LMFeedPostAttachment.builder()
						.setType(AttachmentType.IMAGE)
						.setMetadata(
							LMFeedPostAttachmentMeta.builder()
								.setUrl('https://img.example/zebra.png')
								.setFormat('png')
								.setSize(10)
								.setName('zebra.png')
								.build() as LMFeedPostAttachmentMeta,
						)
						.build(),
				])
				.build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.post.text).toBe('surface post about zebras')
		expect(reply.data?.post.attachments?.[0]?.metaData?.url).toBe('https://img.example/zebra.png')
		state.postId = reply.data?.post.id
		expect(state.postId).toBeString()
	})

	test('editPost', async () => {
		const client = await as('feed-ann')
		const reply = await client.editPost(
			EditPostRequest.builder()
				.setPostId(state.postId)
				.setText('surface post about zebras, edited')
				.setAttachments([])
				.setTopicIds([state.topicId])
				.build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.post.text).toBe('surface post about zebras, edited')
	})

	test('getPost', async () => {
		const client = await as('feed-ann')
		const reply = await client.getPost(
			GetPostRequest.builder().setPostId(state.postId).setPage(1).setPageSize(10).build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.post.id).toBe(state.postId)
		expect(Object.keys(reply.data?.users ?? {})).toContain(session['feed-ann'].user.uuid)
	})

	test('getFeed', async () => {
		const client = await as('feed-bo')
		const reply = await client.getFeed(
			GetFeedRequest.builder().setPage(1).setPageSize(10).setTopicIds([]).build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.posts.map((p) => p.id)).toContain(state.postId)
	})

	test('getFeedWithSearchParams', async () => {
		const client = await as('feed-bo')
		const reply = await client.getFeedWithSearchParams(
			GetFeedRequest.builder().setPage(1).setPageSize(10).setTopicIds([state.topicId]).build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.posts.map((p) => p.id)).toEqual([state.postId])
	})

	test('getPersonalisedFeed', async () => {
		const client = await as('feed-bo')
		const reply = await client.getPersonalisedFeed(
			GetPersonalisedFeedRequest.builder().setPage(1).setPageSize(10).build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.posts.map((p) => p.id)).toContain(state.postId)
	})

	test('searchPosts', async () => {
		const client = await as('feed-bo')
		const reply = await client.searchPosts(
			SearchPostsRequest.builder()
				.setPage(1)
				.setPageSize(10)
				.setSearch('zebras')
				.setSearchType('text')
				.build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.posts.map((p) => p.id)).toEqual([state.postId])
	})

	test('likePost and getPostLikes', async () => {
		const client = await as('feed-bo')
		const liked = await client.likePost(LikePostRequest.builder().setPostId(state.postId).build())
		expect(liked.success).toBe(true)
		const likes = await client.getPostLikes(
			GetPostLikesRequest.builder().setPostId(state.postId).setPage(1).setPageSize(10).build(),
		)
		expect(likes.success).toBe(true)
		expect(likes.data?.totalCount).toBe(1)
		expect(likes.data?.likes[0]).toMatchObject({
			uuid: session['feed-bo'].user.uuid,
			userId: session['feed-bo'].user.uuid,
			createdAt: expect.any(Number),
			updatedAt: expect.any(Number),
		})
	})

	test('savePost', async () => {
		const client = await as('feed-bo')
		const reply = await client.savePost(SavePostRequest.builder().setPostId(state.postId).build())
		expect(reply.success).toBe(true)
		const post = await client.getPost(
			GetPostRequest.builder().setPostId(state.postId).setPage(1).setPageSize(10).build(),
		)
		expect(post.data?.post.isSaved).toBe(true)
	})

	test('pinPost', async () => {
		const client = await as('feed-ann')
		const reply = await client.pinPost(PinPostRequest.builder().setPostId(state.postId).build())
		expect(reply.success).toBe(true)
		const post = await client.getPost(
			GetPostRequest.builder().setPostId(state.postId).setPage(1).setPageSize(10).build(),
		)
		expect(post.data?.post.isPinned).toBe(true)
	})

	test('postSeen', async () => {
		const client = await as('feed-bo')
		const reply = await client.postSeen(
			PostSeenRequest.builder().setPostIds([state.postId]).build(),
		)
		expect(reply.success).toBe(true)
	})

	test('addComment', async () => {
		const client = await as('feed-bo')
		const reply = (await client.addComment(
			AddCommentRequest.builder()
				.setPostId(state.postId)
				.setText('nice zebras')
				.setTempId('t1')
				.build(),
		)) as Any
		expect(reply.success).toBe(true)
		expect(reply.data.comment.text).toBe('nice zebras')
		state.commentId = reply.data.comment.id
	})

	test('replyComment', async () => {
		const client = await as('feed-ann')
		const reply = await client.replyComment(
			ReplyCommentRequest.builder()
				.setPostId(state.postId)
				.setCommentId(state.commentId)
				.setText('thanks')
				.setTempId('t2')
				.build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.comment.text).toBe('thanks')
		state.replyId = reply.data?.comment.id
	})

	test('editComment', async () => {
		const client = await as('feed-bo')
		const reply = await client.editComment(
			EditCommentRequest.builder()
				.setPostId(state.postId)
				.setCommentId(state.commentId)
				.setText('very nice zebras')
				.build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.comment.text).toBe('very nice zebras')
	})

	test('getComments', async () => {
		const client = await as('feed-bo')
		const reply = (await client.getComments(
			GetCommentRequest.builder()
				.setPostId(state.postId)
				.setCommentId(state.commentId)
				.setPage(1)
				.setPageSize(10)
				.build(),
		)) as Any
		expect(reply.success).toBe(true)
		expect(reply.data.comment.id).toBe(state.commentId)
		expect(reply.data.comment.replies.map((r: Any) => r.id)).toEqual([state.replyId])
	})

	test('likeComment and getCommentLikes', async () => {
		const client = await as('feed-ann')
		const liked = await client.likeComment(
			LikeCommentRequest.builder().setPostId(state.postId).setCommentId(state.commentId).build(),
		)
		expect(liked.success).toBe(true)
		const likes = await client.getCommentLikes(
			GetCommentLikesRequest.builder()
				.setPostId(state.postId)
				.setCommentId(state.commentId)
				.setPage(1)
				.setPageSize(10)
				.build(),
		)
		expect(likes.success).toBe(true)
		expect(likes.data?.totalCount).toBe(1)
		expect(likes.data?.likes[0]?.uuid).toBe(session['feed-ann'].user.uuid)
	})

	test('getNotificationFeed, getUnreadNotificationCount and markReadNotification', async () => {
		const client = await as('feed-ann')
		const count = await client.getUnreadNotificationCount()
		expect(count.success).toBe(true)
		expect(count.data?.count).toBeGreaterThan(0)
		const activities = await client.getNotificationFeed(
			GetNotificationFeedRequest.builder().setPage(1).setPageSize(10).build(),
		)
		expect(activities.success).toBe(true)
		const [first] = activities.data?.activities ?? []
		expect(first?.id).toBeString()
		const read = await client.markReadNotification(
			MarkReadNotificationRequest.builder()
				.setActivityId(first?.id as string)
				.build(),
		)
		expect(read.success).toBe(true)
		const after = await client.getUnreadNotificationCount()
		expect(after.data?.count).toBe((count.data?.count as number) - 1)
	})

	test('deleteComment', async () => {
		const client = await as('feed-ann')
		const reply = await client.deleteComment(
			DeleteCommentRequest.builder()
				.setPostId(state.postId)
				.setCommentId(state.replyId)
				.setReason('tidy')
				.build(),
		)
		expect(reply.success).toBe(true)
	})

	test('getTaggingList', async () => {
		const client = await as('feed-bo')
		const reply = await client.getTaggingList(
			GetTaggingListRequest.builder().setSearchName('feed').setPage(1).setPageSize(10).build(),
		)
		expect(reply.success).toBe(true)
		expect(reply.data?.members.map((m: Any) => m.uuid)).toContain(session['feed-ann'].user.uuid)
	})

	test('updateUserTopics and getUserTopics', async () => {
		const client = await as('feed-bo')
		const uuid = session['feed-bo'].user.uuid
		const updated = await client.updateUserTopics(
			UpdateUserTopicsRequest.builder()
				.setUuid(uuid)
				.setTopicsIds({ [state.topicId]: true })
				.build(),
		)
		expect(updated.success).toBe(true)
		const read = await client.getUserTopics(GetUserTopicsRequest.builder().setUuids([uuid]).build())
		expect(read.success).toBe(true)
		expect(read.data?.userTopics[uuid]).toEqual([state.topicId])
	})

	test('getMemberState', async () => {
		const client = await as('feed-bo')
		const reply = await client.getMemberState()
		expect(reply.success).toBe(true)
		expect(reply.data?.member.uuid).toBe(session['feed-bo'].user.uuid)
	})

	test('getAllMembers', async () => {
		const client = await as('feed-bo')
		const reply = await client.getAllMembers(GetAllMembersRequest.builder().setPage(1).build())
		expect(reply.success).toBe(true)
		expect(reply.data?.totalMembers).toBe(3)
	})

	test('getMemberRights and updateMemberRights', async () => {
		const client = await as(cm.uniqueId)
		const uuid = session['feed-bo'].user.uuid
		const rights = await client.getMemberRights(
			GetMemberRightsRequest.builder().setUuid(uuid).setIsCM(false).build(),
		)
		expect(rights.success).toBe(true)
		expect(rights.data?.rights.length).toBeGreaterThan(0)
		const updated = await client.updateMemberRights(
			UpdateMemberRightsRequest.builder()
				.setUuid(uuid)
				.setIsCM(false)
				.setRights((rights.data?.rights ?? []).map((r) => ({ ...r, isSelected: true })))
				.setCustomTitle('')
				.build(),
		)
		expect(updated.success).toBe(true)
	})

	test('getCommunityConfigurations', async () => {
		const client = await as('feed-bo')
		const reply = (await client.getCommunityConfigurations()) as Any
		expect(reply.success).toBe(true)
		const configurations = reply.data.communityConfigurations ?? reply.data.community_configurations
		expect(Array.isArray(configurations)).toBe(true)
	})

	test('decodeURL', async () => {
		const client = await as('feed-bo')
		const reply = await client.decodeURL(DecodeURLRequest.builder().setURL(pageUrl()).build())
		expect(reply.success).toBe(true)
		expect(reply.data?.ogTags.title).toBe('Surface page')
	})

	test('a poll post: submitPollVote, addPollOption, getPollVotes', async () => {
		const author = await as('feed-ann')
		const created = await author.addPost(
			AddPostRequest.builder()
				.setText('surface poll')
				.setTopicIds([])
				.setAttachments([
					LMFeedPostAttachment.builder()
						.setType(AttachmentType.POLL)
						.setMetadata(
							LMFeedPostAttachmentMeta.builder()
								.setTitle('Which?')
								.setOptions(['A', 'B'])
								.setExpiryTime(Date.now() + 3_600_000)
								.setMultipleSelectState('exactly' as never)
								.setMultipleSelectNumber(1)
								.setPollType('instant' as never)
								.setIsAnonymous(false)
								.setAllowAddOption(true)
								.build() as LMFeedPostAttachmentMeta,
						)
						.build(),
				])
				.build(),
		)
		expect(created.success).toBe(true)
		const pollId = created.data?.post.attachments[0]?.metaData.entityId as string
		const optionA = ((created.data?.widgets[pollId]?.metadata.options ?? []) as Any[])[0]?.id
		const voter = await as('feed-bo')
		const voted = await voter.submitPollVote({ pollId, votes: [optionA] })
		expect(voted.success).toBe(true)
		const added = await voter.addPollOption({ pollId, text: 'C' })
		expect(added.success).toBe(true)
		const votes = await voter.getPollVotes({ pollId, votes: [optionA], page: 1, pageSize: 10 })
		expect(votes.success).toBe(true)
		expect(votes.data?.votes[0]?.users).toEqual([session['feed-bo'].user.uuid])
	})

	test('validateRegisterDeviceRequest and registerDevice', async () => {
		const client = await as('feed-bo')
		const registered = await client.validateRegisterDeviceRequest(
			RegisterDeviceRequest.builder()
				.setToken('surface-push')
				.setDeviceId('surface-device')
				.build(),
		)
		expect(registered.success).toBe(true)
		const listed = await client.registerDevice()
		expect(listed.success).toBe(true)
	})

	test('deletePost', async () => {
		const client = await as('feed-ann')
		const reply = await client.deletePost(
			DeletePostRequest.builder().setPostId(state.postId).setDeleteReason('done').build(),
		)
		expect(reply.success).toBe(true)
		const gone = await api('GET', `/feed/post/${state.postId}`, { token: cm.token })
		expect(gone.status).toBe(404)
	})

	test('logoutUser (with a device id: POST /user/logout revokes the refresh token)', async () => {
		const client = await as('feed-bo')
		const refreshToken = session['feed-bo'].refreshToken
		const reply = await client.logoutUser(
			LogoutRequest.builder().setDeviceId('surface-device').build(),
		)
		expect(reply.success).toBe(true)
		const refreshed = await api('POST', '/user/refresh', { body: { refresh_token: refreshToken } })
		expect(refreshed.status).toBeGreaterThanOrEqual(400)
	})
})

describe('chat-js LMChatClient', () => {
	const chat = chatClient()
	const users: Record<string, Any> = {}
	const tokens: Record<string, Any> = {}
	/** initiateUser as this member; the shared storage now holds their tokens. */
	const as = async (uniqueId: string) => {
		const reply = await chat.initiateUser({
			userName: uniqueId,
			userUniqueId: uniqueId,
			isGuest: false,
			apiKey: community.apiKey,
		})
		expect(reply.success).toBe(true)
		users[uniqueId] = reply.data?.user
		tokens[uniqueId] = reply.data
		return reply.data?.user as Any
	}
	const state: Record<string, Any> = {}
	const room = () => Number(state.room.id)

	test('initiateUser', async () => {
		const user = await as('chat-ana')
		expect(user.name).toBe('chat-ana')
		expect(user.uuid).toBeString()
	})

	test('validateUser', async () => {
		await as('chat-ana')
		const reply = await chat.validateUser({
			accessToken: tokens['chat-ana'].accessToken,
			refreshToken: tokens['chat-ana'].refreshToken,
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.user.uuid).toBe(users['chat-ana'].uuid)
		expect(reply.data).toMatchObject({ appAccess: true, hasAnswers: true })
		expect(Number(reply.data?.community.id)).toBe(community.communityId)
	})

	test('initiateUserWithUuid', async () => {
		const reply = await chat.initiateUserWithUuid({
			uuid: 'chat-bo',
			userName: 'chat-bo',
			isGuest: false,
			apiKey: community.apiKey,
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.user.name).toBe('chat-bo')
		users['chat-bo'] = reply.data?.user
	})

	test('followChatroom and followChatroomWithUuid', async () => {
		state.room = (
			await api('POST', '/chatroom', { token: cm.token, body: { title: 'Surface room' } })
		).body.data.chatroom
		const ana = await as('chat-ana')
		const followed = await chat.followChatroom({
			collabcardId: room(),
			memberId: Number(ana.id),
			value: true,
		})
		expect(followed.success).toBe(true)
		const bo = await as('chat-bo')
		const withUuid = await chat.followChatroomWithUuid({
			collabcardId: room(),
			uuid: bo.uuid,
			value: true,
		})
		expect(withUuid.success).toBe(true)
		const members = await api('GET', `/chatroom/participants?chatroom_id=${room()}`, {
			token: cm.token,
		})
		expect(JSON.stringify(members.body)).toContain(ana.uuid)
		expect(JSON.stringify(members.body)).toContain(bo.uuid)
	})

	test('getChatroom', async () => {
		await as('chat-ana')
		const reply = await chat.getChatroom({ chatroomId: room() })
		expect(reply.success).toBe(true)
		expect(reply.data?.chatroom.title).toBe('Surface room')
		expect(reply.data?.community).toMatchObject({ id: community.communityId, name: 'sdk-surface' })
		expect(reply.data?.participantCount).toBe(3)
		expect((reply.data?.chatroom as Any)?.followStatus).toBe(true)
	})

	test('muteChatroom', async () => {
		await as('chat-ana')
		const reply = await chat.muteChatroom({ chatroomId: room(), value: true })
		expect(reply.success).toBe(true)
		const read = await chat.getChatroom({ chatroomId: room() })
		expect((read.data?.chatroom as Any)?.muteStatus).toBe(true)
	})

	test('postConversation', async () => {
		await as('chat-ana')
		const reply = await chat.postConversation({
			chatroomId: room(),
			text: 'hello surface penguins',
			hasFiles: false,
			temporaryId: '111',
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversation.answer).toBe('hello surface penguins')
		expect(reply.data?.widgets).toEqual({})
		expect(reply.data?.id).toBeDefined()
		state.conversationId = Number(reply.data?.conversation.id)
	})

	test('editConversation', async () => {
		await as('chat-ana')
		const reply = await chat.editConversation({
			conversationId: state.conversationId,
			text: 'hello surface penguins, edited',
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversation.answer).toBe('hello surface penguins, edited')
	})

	test('getConversation', async () => {
		await as('chat-bo')
		const reply = await chat.getConversation({
			chatroomID: room(),
			paginateBy: 20,
			topNavigate: false,
			include: true,
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversations.map((c) => Number(c.id))).toContain(state.conversationId)
		// jumping to a conversation: conversation_id with include=true and no direction
		const jump = await chat.getConversation({
			chatroomID: room(),
			conversationID: state.conversationId,
			paginateBy: 20,
			topNavigate: false,
			include: true,
		})
		expect(jump.success).toBe(true)
		expect(Number(jump.data?.conversations.at(-1)?.id)).toBe(state.conversationId)
	})

	test('getConversations', async () => {
		await as('chat-bo')
		const reply = await chat.getConversations({
			page: 1,
			pageSize: 20,
			chatroomId: room(),
			maxTimestamp: Date.now() + 60_000,
			minTimestamp: 0,
			isLocalDb: false,
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversationsData.map((c) => Number(c.id))).toContain(state.conversationId)
		expect(reply.data?.chatroomMeta[String(room())]?.title).toBe('Surface room')
		expect(reply.data?.communityMeta).toMatchObject({ id: community.communityId })
		expect(reply.data?.userMeta[String(users['chat-ana'].id)]?.uuid).toBe(users['chat-ana'].uuid)
		expect(reply.data?.convReactionsMeta).toEqual({})
		expect(reply.data?.widgets).toEqual({})
	})

	test('conversationsFetch', async () => {
		await as('chat-bo')
		const reply = (await chat.conversationsFetch({
			chatroomId: room(),
			conversationId: state.conversationId,
		})) as Any
		expect(reply.success).toBe(true)
		// No scroll_direction: the page older than the anchor (DESIGN §6), oldest first.
		const ids = reply.data.conversations.map((c: Any) => Number(c.id))
		expect(ids.length).toBeGreaterThan(0)
		expect(ids.every((id: number) => id < state.conversationId)).toBe(true)
		// the same without its room: the conversation itself comes back with its page
		const alone = (await chat.conversationsFetch({ conversationId: state.conversationId })) as Any
		expect(Number(alone.data.conversations.at(-1).id)).toBe(state.conversationId)
	})

	test('fetchChatroomHome', async () => {
		await as('chat-bo')
		const reply = (await chat.fetchChatroomHome({ chatroom_id: room() })) as Any
		expect(reply.success).toBe(true)
		expect(JSON.stringify(reply.data)).toContain('Surface room')
	})

	test('putReaction and deleteReaction', async () => {
		await as('chat-bo')
		const put = await chat.putReaction({
			chatroomId: room(),
			conversationId: state.conversationId,
			reaction: '🐧',
		})
		expect(put.success).toBe(true)
		const page = await api('GET', `/conversation?chatroom_id=${room()}`, { token: cm.token })
		const reacted = page.body.data.conversations.find(
			(c: Any) => Number(c.id) === state.conversationId,
		)
		expect(reacted.reactions.map((r: Any) => r.reaction)).toEqual(['🐧'])
		const removed = await chat.deleteReaction({
			chatroomId: room(),
			conversationId: state.conversationId,
			reaction: '🐧',
		})
		expect(removed.success).toBe(true)
	})

	test('markReadChatroom, crSeenFn, chatroomSeen, chatroomSeenWithUuid', async () => {
		const bo = await as('chat-bo')
		const unread = async () => (await chat.getChatroom({ chatroomId: room() })).data?.unreadMessages
		const say = () =>
			api('POST', '/conversation', { token: cm.token, body: { chatroom_id: room(), text: 'more' } })
		await say()
		expect(await unread()).toBeGreaterThan(0)
		expect((await chat.markReadChatroom({ chatroomId: room() })).success).toBe(true)
		expect(await unread()).toBe(0)
		await say()
		expect(
			(
				(await chat.crSeenFn({
					collabcardId: room(),
					memberId: Number(bo.id),
					collabcardType: 1,
				})) as Any
			).data,
		).toEqual({ unreadMessages: 0 })
		await say()
		expect(
			(
				(await chat.chatroomSeen({
					collabcardId: room(),
					memberId: Number(bo.id),
					collabcardType: 1,
				})) as Any
			).data,
		).toEqual({ unreadMessages: 0 })
		await say()
		const withUuid = await chat.chatroomSeenWithUuid({
			collabcardId: room(),
			uuid: bo.uuid,
			collabcardType: 1,
		})
		expect(withUuid.success).toBe(true)
		expect(await unread()).toBe(0)
	})

	test('shareChatroomUrl', async () => {
		await as('chat-bo')
		const reply = await chat.shareChatroomUrl({ chatroomId: room(), domain: 'example.com' })
		expect(reply.success).toBe(true)
		expect(reply.data?.communityShare.publicLink).toContain(String(room()))
	})

	test('setChatroomTopic', async () => {
		await as(cm.uniqueId)
		const reply = await chat.setChatroomTopic({
			chatroomId: room(),
			conversationId: state.conversationId,
		})
		expect(reply.success).toBe(true)
		const read = await api('GET', `/chatroom?chatroom_id=${room()}`, { token: cm.token })
		expect(read.body.data.chatroom.topic_id).toBe(String(state.conversationId))
	})

	test('getTaggingList', async () => {
		await as('chat-bo')
		const reply = await chat.getTaggingList({
			page: 1,
			pageSize: 10,
			searchName: 'chat',
			chatroomId: room(),
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.communityMembers?.map((m) => m.uuid)).toContain(users['chat-ana'].uuid)
	})

	test('decodeUrl', async () => {
		await as('chat-bo')
		const reply = await chat.decodeUrl({ url: pageUrl() })
		expect(reply.success).toBe(true)
		expect(reply.data?.ogTags.title).toBe('Surface page')
	})

	test('profileData', async () => {
		const bo = await as('chat-bo')
		const reply = (await chat.profileData({
			community_id: community.communityId,
			member_id: Number(bo.id),
		})) as Any
		expect(reply.success).toBe(true)
		expect(reply.data.member.uuid).toBe(bo.uuid)
	})

	test('viewParticipants and getParticipants', async () => {
		await as('chat-bo')
		const view = await chat.viewParticipants({
			chatroomId: room(),
			isSecret: false,
			page: 1,
			pageSize: 10,
		})
		expect(view.success).toBe(true)
		expect((view.data as Any).participants.map((p: Any) => p.uuid)).toContain(
			users['chat-ana'].uuid,
		)
		expect(view.data?.canEditParticipant).toBe(false)
		expect(view.data?.totalParticipantsCount).toBeGreaterThanOrEqual(3)
		const get = await chat.getParticipants({
			chatroomID: room(),
			isSecret: false,
			page: 1,
			pageSize: 10,
		})
		expect(get.success).toBe(true)
		expect((get.data as Any).participants.length).toBe((view.data as Any).participants.length)
	})

	test('getAIChatbots', async () => {
		await as('chat-bo')
		const reply = await chat.getAIChatbots({ page: 1, pageSize: 10 })
		expect(reply.success).toBe(true)
		expect(reply.data?.users).toEqual([])
	})

	test('searchConversation', async () => {
		await as('chat-bo')
		const reply = await chat.searchConversation({
			chatroomId: room(),
			search: 'penguins',
			followStatus: true,
			page: 1,
			pageSize: 10,
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversations.map((c) => Number(c.id))).toEqual([state.conversationId])
	})

	test('searchChatroom', async () => {
		await as('chat-bo')
		const reply = await chat.searchChatroom({
			followStatus: true,
			page: 1,
			pageSize: 10,
			search: 'Surface',
			searchType: 'header',
		})
		expect(reply.success).toBe(true)
		expect(JSON.stringify(reply.data?.chatrooms)).toContain('Surface room')
	})

	test('deleteConversation', async () => {
		await as('chat-ana')
		const reply = await chat.deleteConversation({
			conversationIds: [state.conversationId],
			reason: 'tidy',
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversations.map((c) => Number(c.id))).toEqual([state.conversationId])
	})

	test('postPollConversation, submitPoll, addPollOption, getPollUsers', async () => {
		await as('chat-ana')
		const created = await chat.postPollConversation({
			chatroomId: room(),
			state: 10,
			text: 'Fish?',
			polls: [{ text: 'Cod' }, { text: 'Hake' }],
			pollType: 0,
			multipleSelectState: 0,
			multipleSelectNo: 1,
			isAnonymous: false,
			allowAddOption: true,
			expiryTime: Date.now() + 3_600_000,
			temporaryId: 222,
		})
		expect(created.success).toBe(true)
		const poll = created.data?.conversation as Any
		const options = poll.polls as Any[]
		expect(options.map((o) => o.text)).toEqual(['Cod', 'Hake'])
		await as('chat-bo')
		const voted = await chat.submitPoll({
			conversationId: Number(poll.id),
			polls: [{ id: options[0].id }],
		})
		expect(voted.success).toBe(true)
		const added = await chat.addPollOption({
			conversationId: Number(poll.id),
			poll: { text: 'Eel' },
		})
		expect(added.success).toBe(true)
		expect(JSON.stringify(added.data)).toContain('Eel')
		const voters = await chat.getPollUsers({
			pollId: Number(options[0].id),
			conversationId: Number(poll.id),
		})
		expect(voters.success).toBe(true)
		expect(voters.data?.members.map((m) => m.uuid)).toEqual([users['chat-bo'].uuid])
	})

	test('sendInvites, getInvites, inviteAction, leaveSecretChatroom', async () => {
		const secret = (
			await api('POST', '/chatroom', {
				token: cm.token,
				body: { title: 'Surface secret', is_secret: true },
			})
		).body.data.chatroom
		const cy = await as('chat-cy')
		await as(cm.uniqueId)
		const sent = await chat.sendInvites({
			chatroomId: Number(secret.id),
			isSecret: true,
			chatroomParticipants: [Number(cy.id)],
		})
		expect(sent?.data).toEqual({ invitedCount: 1 })
		await as('chat-cy')
		const invites = await chat.getInvites({ channelType: 1, page: 1, pageSize: 10 })
		expect(invites?.data?.userInvites?.[0]?.channel?.id).toBe(secret.id)
		const accepted = await chat.inviteAction({ channelId: secret.id, inviteStatus: 1 })
		expect(accepted?.data?.inviteStatus).toBe(1)
		const left = await chat.leaveSecretChatroom({ chatroomId: Number(secret.id), isSecret: true })
		expect(left.success).toBe(true)
		const gone = await api('GET', `/chatroom?chatroom_id=${secret.id}`, {
			token: tokens['chat-cy'].accessToken,
		})
		expect(gone.status).toBeGreaterThanOrEqual(400)
	})

	test('checkDMTab, checkDMStatus, canDmFeed, canDmFeedWithUuid', async () => {
		const bo = users['chat-bo']
		await as('chat-ana')
		const tab = await chat.checkDMTab()
		expect(tab.success).toBe(true)
		expect(tab.data?.hideDmTab).toBe(false)
		const status = await chat.checkDMStatus({ requestFrom: 'dm_feed' })
		expect(status.data?.showDm).toBe(true)
		const can = await chat.canDmFeed({ reqFrom: 'member_profile', memberId: Number(bo.id) })
		expect(can?.data?.cta).toContain('route://')
		const canUuid = await chat.canDmFeedWithUuid({ reqFrom: 'member_profile', uuid: bo.uuid })
		expect(canUuid.data?.cta).toContain(bo.uuid)
	})

	test('checkDMLimit and checkDMLimitWithUuid', async () => {
		const bo = users['chat-bo']
		await as('chat-ana')
		const limit = await chat.checkDMLimit({ memberId: Number(bo.id) })
		expect(limit.success).toBe(true)
		expect(limit.data?.isRequestDmLimitExceeded).toBe(false)
		const byUuid = await chat.checkDMLimitWithUuid({ uuid: bo.uuid })
		expect(byUuid.data?.isRequestDmLimitExceeded).toBe(false)
	})

	test('createDMChatroom and createDMChatroomWithUuid', async () => {
		const bo = users['chat-bo']
		await as('chat-ana')
		const created = await chat.createDMChatroom({ memberId: Number(bo.id) })
		expect(created.success).toBe(true)
		expect(created.data?.chatroom.type).toBe(10)
		state.dm = created.data?.chatroom.id
		const again = await chat.createDMChatroomWithUuid({ uuid: bo.uuid })
		expect(again.data?.chatroom.id).toBe(state.dm)
	})

	test('sendDMRequest', async () => {
		await as('chat-ana')
		const reply = await chat.sendDMRequest({
			chatroomId: Number(state.dm),
			chatRequestState: 0,
			text: 'hi Bo',
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.conversation.answer).toBe('hi Bo')
	})

	test('getDMFeed and fetchDMFeed', async () => {
		await as('chat-bo')
		const feed = await chat.getDMFeed({ community_id: community.communityId })
		expect(feed?.data?.chatroomsData?.map((r: Any) => r.id)).toEqual([state.dm])
		const synced = await chat.fetchDMFeed({
			page: 1,
			pageSize: 10,
			chatroomTypes: [10],
			maxTimestamp: Date.now(),
			minTimestamp: 0,
		})
		expect(synced.data?.chatroomsData.map((r) => r.id)).toEqual([state.dm])
	})

	test('blockMember', async () => {
		await as('chat-bo')
		const blocked = await chat.blockMember({ chatroomId: Number(state.dm), status: 0 })
		expect(blocked.success).toBe(true)
		expect((blocked.data as Any).isBlocked).toBe(true)
		const unblocked = await chat.blockMember({ chatroomId: Number(state.dm), status: 1 })
		expect((unblocked.data as Any).isBlocked).toBe(false)
	})

	test('getHomeFeed', async () => {
		await as('chat-bo')
		const reply = await chat.getHomeFeed({
			page: 1,
			pageSize: 10,
			chatroomTypes: [0, 7],
			maxTimestamp: Date.now(),
			minTimestamp: 0,
		})
		expect(reply.success).toBe(true)
		expect(reply.data?.chatroomsData.map((r) => r.title)).toContain('Surface room')
	})

	test('getExploreFeed', async () => {
		await as('chat-bo')
		const reply = await chat.getExploreFeed({ orderType: 0, page: 1 })
		expect(reply.success).toBe(true)
		expect(reply.data?.chatrooms.map((r) => r.title)).toContain('Surface room')
	})

	test('searchMembers', async () => {
		await as('chat-bo')
		const reply = await chat.searchMembers({
			search: 'chat-an',
			searchType: 'name',
			page: 1,
			pageSize: 10,
		})
		expect(reply?.data?.members?.map((m: Any) => m.uuid)).toContain(users['chat-ana'].uuid)
	})

	test('getProfile, editProfile, getMemberState, getQuestions', async () => {
		const bo = await as('chat-bo')
		const edited = await chat.editProfile({
			userUniqueId: 'chat-bo',
			userName: 'Bo Edited',
			imageUrl: 'https://img.example/bo.png',
		})
		expect(edited?.data?.member?.name).toBe('Bo Edited')
		const profile = await chat.getProfile({ userId: Number(bo.id) })
		expect(profile?.data?.member?.name).toBe('Bo Edited')
		const memberState = await chat.getMemberState()
		expect(memberState?.data?.member?.uuid).toBe(bo.uuid)
		const questions = await chat.getQuestions()
		expect(questions?.data?.questions).toEqual([])
	})

	test('getMemberChatroom, getAllMembers, dmAllMembers, allMembers', async () => {
		const bo = await as('chat-bo')
		const rooms = await chat.getMemberChatroom({ userId: Number(bo.id), state: 1, page: 1 })
		expect(rooms?.data?.chatrooms?.map((r: Any) => r.title)).toContain('Surface room')
		const all = await chat.getAllMembers({ page: 1 })
		expect(all?.data?.members?.map((m: Any) => m.uuid)).toContain(users['chat-ana'].uuid)
		const dm = await chat.dmAllMembers({ community_id: community.communityId, page: 1 })
		expect(dm?.data?.members?.length).toBeGreaterThan(0)
		const everyone = await chat.allMembers({ community_id: community.communityId, page: 1 })
		expect(everyone?.data?.totalMembers).toBeGreaterThan(0)
	})

	test('registerDevice', async () => {
		await as('chat-bo')
		const reply = await chat.registerDevice({
			token: 'surface-chat-push',
			xDeviceId: 'surface-chat-device',
			xPlatformCode: 'rt',
		})
		expect(reply?.success).toBe(true)
	})

	test('pushLogs', async () => {
		await as('chat-bo')
		const reply = await chat.pushLogs({
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
					stackTrace: { exception: 'Error: surface', trace: 'at surface' },
					severity: 4,
				},
			],
		} as never)
		expect(reply.success).toBe(true)
	})

	test('makeAuthenticatedRequest', async () => {
		const bo = await as('chat-bo')
		const reply = (await chat.makeAuthenticatedRequest(
			'https://auth.likeminds.community/community/member/state',
		)) as Any
		expect(reply.success).toBe(true)
		expect(reply.data.member.uuid).toBe(bo.uuid)
	})

	test('logout', async () => {
		await as('chat-bo')
		const refreshToken = tokens['chat-bo'].refreshToken
		// chat-js logs out only what the app stored for the next launch.
		chat.setAccessTokenInLocalStorage(tokens['chat-bo'].accessToken)
		chat.setRefreshTokenInLocalStorage(refreshToken)
		const reply = await chat.logout({ deviceId: 'surface-chat-device' })
		expect(reply.success).toBe(true)
		const refreshed = await api('POST', '/user/refresh', { body: { refresh_token: refreshToken } })
		expect(refreshed.status).toBeGreaterThanOrEqual(400)
	})

	test('leaveCommunity', async () => {
		const ana = await as('chat-ana')
		const reply = await chat.leaveCommunity({ uuids: [ana.uuid] })
		expect(reply?.data?.removed).toEqual([ana.uuid])
	})
})
