// The vendor SDKs, unchanged, on moderation: feed-js's report methods (getReportTags,
// postReport, getReports, getReportsForPostAndComments, getPendingPostsForModeration —
// a post held under post_moderation —, updateReportStatus) and hidePost; chat-js's getReportTags and pushReport. (Member
// rights — getMemberRights, updateMemberRights — are the member routes' own test.)
// Both SDKs keep their tokens in one process-wide localStorage: each step re-runs
// initiateUser for the user about to act. Some SDK methods swallow failures and resolve
// undefined, so every check is on the data answered.
import { beforeAll, describe, expect, test } from 'bun:test'
import {
	FilterType,
	GetPendingPostModerationRequest,
	GetPostCommentReportRequest,
	GetReportsRequest,
	GetReportTagsRequest,
	HidePostRequest,
	LMFeedReportStatus,
	PostReportRequest,
	ReportEntityType,
	UpdateReportStatusRequest,
} from '@likeminds.community/feed-js'
import { changeRole } from '../../src/modules/auth/roles'
import { newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { feed, ids, newPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'
import { chatClient, feedSignedIn } from '../support/sdk'

let community: TestCommunity
let author: TestUser
let bystander: TestUser
let cmToken: string

/** feed-js client signed in as `uuid` (the last initiateUser wins the shared storage). */
async function feedAs(uuid: string) {
	return (await feedSignedIn(community.apiKey, uuid)).client
}

/** The plaza user behind a customer id (to check reads over HTTP with its own token). */
async function userOf(uniqueId: string) {
	const [row] = await sql`
		select id::float8 as id from users where community_id = ${community.communityId} and user_unique_id = ${uniqueId}`
	return row.id as number
}

beforeAll(async () => {
	community = await newCommunity('sdk-moderation')
	author = await newUser(community)
	bystander = await newUser(community)
	await feedAs('sdk-cm')
	await changeRole(community.communityId, await userOf('sdk-cm'), 'cm', [])
	cmToken = (await newUser(community, { role: 'cm' })).token
})

describe('feed-js ModerationClient, unchanged', () => {
	test('a member reports a post; the CM reads the queue three ways and approves it', async () => {
		const postId = await newPost(author, { text: 'reported through feed-js' })
		let client = await feedAs('sdk-reporter')
		const tags = await client.getReportTags(
			GetReportTagsRequest.builder().setEntityType(ReportEntityType.POST).build(),
		)
		expect(tags.data?.reportTags.map((t) => t.name)).toContain('spam')
		const spam = tags.data?.reportTags.find((t) => t.name === 'spam')?.id as number
		const filed = await client.postReport(
			PostReportRequest.builder()
				.setEntityId(postId)
				.setAccusedUUID(author.uuid)
				.setEntityType(ReportEntityType.POST)
				.setTagId(spam)
				.build(),
		)
		expect(filed.success).toBe(true)
		// Gone for the reporter's own feed at once, while others still see it.
		const mine = await client.getFeed({ page: 1, pageSize: 20 } as never)
		expect(mine.data?.posts.map((p) => p.id)).not.toContain(postId)
		expect(ids((await feed(bystander)).posts)).toContain(postId)

		client = await feedAs('sdk-cm')
		const queue = await client.getReports(
			GetReportsRequest.builder()
				.setPage(1)
				.setPageSize(10)
				.setFilterType([FilterType.POST])
				.setIsClosed(false)
				.build(),
		)
		const group = queue.data?.reportsData.find((g) => g.entityId === postId)
		expect(group?.reports[0]?.tag?.name).toBe('spam')
		expect(group?.reports[0]?.accusedUser.uuid).toBe(author.uuid)
		expect(queue.data?.posts[postId]?.text).toBe('reported through feed-js')
		const both = await client.getReportsForPostAndComments(
			GetPostCommentReportRequest.builder().setPage(1).build(),
		)
		expect(both.data?.reportsData.map((g) => g.entityId)).toContain(postId)
		const hold = (post_moderation: string) =>
			api('PUT', '/community/settings/moderation', {
				token: cmToken,
				body: { post_moderation },
			})
		expect((await hold('all')).status).toBe(200)
		const waiting = await newPost(author, { text: 'pending through feed-js' })
		expect((await hold('off')).status).toBe(200)
		const pending = await client.getPendingPostsForModeration(
			GetPendingPostModerationRequest.builder().setPage(1).setPageSize(10).build(),
		)
		expect(pending.data?.reportsData.map((g) => g.entityId)).toEqual([waiting])
		expect(pending.data?.posts[waiting]?.text).toBe('pending through feed-js')
		const closed = await client.updateReportStatus(
			UpdateReportStatusRequest.builder()
				.setReportIds([group?.reports[0]?.id as number])
				.setActionTaken(LMFeedReportStatus.POST_APPROVED)
				.build(),
		)
		expect(closed.success).toBe(true)
		const after = await client.getReports(
			GetReportsRequest.builder().setPage(1).setIsClosed(true).build(),
		)
		const done = after.data?.reportsData.find((g) => g.entityId === postId)
		expect(done?.reports[0]?.isClosed).toBe(true)
		expect(typeof done?.reports[0]?.closedOn).toBe('number')
	})

	test('a member cannot read the queue', async () => {
		const client = await feedAs('sdk-member')
		const queue = await client
			.getReports(GetReportsRequest.builder().setPage(1).build())
			.catch((error: { response?: { status: number } }) => error.response?.status)
		expect((queue as { data?: unknown })?.data).toBeUndefined()
		// Positive control: the same call by the CM answers.
		const cm = await feedAs('sdk-cm')
		expect((await cm.getReports(GetReportsRequest.builder().setPage(1).build())).success).toBe(true)
	})

	test('hidePost hides the post for the caller alone', async () => {
		const postId = await newPost(author, { text: 'to hide' })
		const client = await feedAs('sdk-hider')
		const before = await client.getFeed({ page: 1, pageSize: 20 } as never)
		expect(before.data?.posts.map((p) => p.id)).toContain(postId)
		const hidden = await client.hidePost(HidePostRequest.builder().setPostId(postId).build())
		expect(hidden.success).toBe(true)
		const after = await client.getFeed({ page: 1, pageSize: 20 } as never)
		expect(after.data?.posts.map((p) => p.id)).not.toContain(postId)
		expect(ids((await feed(bystander)).posts)).toContain(postId)
	})
})

describe('chat-js, unchanged', () => {
	test('getReportTags and pushReport of a conversation', async () => {
		const cm = await newUser(community, { role: 'cm' })
		const room = await newRoom(cm)
		const said = await say(cm, String(room.id), 'a message')
		const chat = chatClient()
		const session = await chat.initiateUser({
			userName: 'Chatter',
			userUniqueId: 'sdk-chatter',
			isGuest: false,
			apiKey: community.apiKey,
		})
		expect(session.success).toBe(true)
		const tags = await chat.getReportTags({ type: 3 } as never)
		const first = (tags.data as { reportTags: { id: number }[] }).reportTags[0]
		expect(first).toBeDefined()
		const pushed = await chat.pushReport({
			conversationId: Number(said.id),
			tagId: first?.id,
			reason: 'not nice',
		} as never)
		expect(pushed.success).toBe(true)
		const queue = await api('GET', '/community/report?filter_type=conversation', {
			token: cm.token,
		})
		expect(queue.body.data.reports_data.map((g: { entity_id: string }) => g.entity_id)).toEqual([
			String(said.id),
		])
	})
})
