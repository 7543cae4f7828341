// The notification feed through the HTTP API: activities made by likes, comments,
// replies, tags and connections; grouping and its text; unlike; deletes; blocks;
// unread counts (also under concurrent likes); mark read; v1 names.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { block, enableConnections } from '../support/connections'
import { newPost, tag } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let alice: TestUser
let bob: TestUser
let carol: TestUser
let dave: TestUser

beforeAll(async () => {
	community = await newCommunity('activities')
	alice = await newUser(community, { name: 'Alice' })
	bob = await newUser(community, { name: 'Bob' })
	carol = await newUser(community, { name: 'Carol' })
	dave = await newUser(community, { name: 'Dave' })
})

const feed = async (user: TestUser, headers: Record<string, string> = {}) => {
	const reply = await api('GET', '/feed/user/activity?page=1&page_size=50', {
		token: user.token,
		headers,
	})
	expect(reply.status).toBe(200)
	return reply.body.data
}
const unread = async (user: TestUser) =>
	(await api('GET', '/feed/user/activity/unread_count', { token: user.token })).body.data.count
const like = (user: TestUser, postId: string) =>
	api('PUT', `/feed/post/${postId}/like`, { token: user.token })
const comment = async (user: TestUser, postId: string, text: string, parentId?: string) => {
	const path = parentId
		? `/feed/post/${postId}/comment/${parentId}/comment`
		: `/feed/post/${postId}/comment`
	const reply = await api('POST', path, { token: user.token, body: { text } })
	expect(reply.status).toBe(200)
	return reply.body.data.comment._id as string
}
const ofEntity = (data: { activities: any[] }, entityId: string, action: number) =>
	data.activities.filter((a) => a.entity_id === entityId && a.action === action)

describe('likes', () => {
	test('likes group per post with the latest actor named; unlike removes the actor', async () => {
		const postId = await newPost(alice, { text: 'group me' })
		await like(bob, postId)
		let [group] = ofEntity(await feed(alice), postId, 6)
		expect(group.action_by).toEqual([bob.uuid])
		expect(group.activity_text).toBe(`<<Bob|route://user_profile/${bob.uuid}>> liked your post`)
		expect(group.entity_type).toBe(0)
		expect(group.entity_owner_id).toBe(alice.uuid)
		expect(group.activity_entity_data._id).toBe(postId)
		expect(group.cta).toBe(`route://post_detail?post_id=${postId}`)
		expect(group.is_read).toBe(false)

		await like(carol, postId)
		await like(dave, postId)
		const data = await feed(alice)
		;[group] = ofEntity(data, postId, 6)
		expect(ofEntity(data, postId, 6)).toHaveLength(1)
		expect(group.action_by).toEqual([bob.uuid, carol.uuid, dave.uuid])
		expect(group.activity_text).toBe(
			`<<Dave|route://user_profile/${dave.uuid}>> and 2 others liked your post`,
		)
		expect(data.users[dave.uuid].name).toBe('Dave')

		await like(dave, postId) // unlike
		;[group] = ofEntity(await feed(alice), postId, 6)
		expect(group.action_by).toEqual([bob.uuid, carol.uuid])
		expect(group.activity_text).toBe(
			`<<Carol|route://user_profile/${carol.uuid}>> and 1 other liked your post`,
		)
		await like(bob, postId)
		await like(carol, postId)
		expect(ofEntity(await feed(alice), postId, 6)).toHaveLength(0)
	})

	test('no activity for liking your own post, or across a block (positive control beside)', async () => {
		const postId = await newPost(carol)
		const blocked = await newUser(community, { name: 'Blocked' })
		await block(community, carol, blocked)
		await like(carol, postId)
		await like(blocked, postId)
		await like(dave, postId)
		const [group] = ofEntity(await feed(carol), postId, 6)
		expect(group.action_by).toEqual([dave.uuid])
	})

	test('a read group stays read; a new like starts a new group', async () => {
		const user = await newUser(community, { name: 'Reader' })
		const postId = await newPost(user)
		await like(bob, postId)
		const [first] = ofEntity(await feed(user), postId, 6)
		expect(await unread(user)).toBe(1)
		const marked = await api('POST', `/feed/user/activity/${first._id}/mark_read`, {
			token: user.token,
		})
		expect(marked.status).toBe(200)
		expect(await unread(user)).toBe(0)
		await like(carol, postId)
		const groups = ofEntity(await feed(user), postId, 6)
		expect(groups.map((g) => [g.is_read, g.action_by])).toEqual([
			[false, [carol.uuid]],
			[true, [bob.uuid]],
		])
		expect(await unread(user)).toBe(1)
	})

	test('the unread count is exact under concurrent likes on several posts', async () => {
		const owner = await newUser(community, { name: 'Owner' })
		const posts = await Promise.all([newPost(owner), newPost(owner), newPost(owner)])
		const likers = await Promise.all(
			Array.from({ length: 8 }, (_, i) => newUser(community, { name: `Liker ${i}` })),
		)
		await Promise.all(posts.flatMap((p) => likers.map((u) => like(u, p))))
		expect(await unread(owner)).toBe(3)
		const data = await feed(owner)
		for (const p of posts) expect(ofEntity(data, p, 6)[0].action_by).toHaveLength(8)
	})
})

describe('comments and tags', () => {
	test('comment, reply, tag and comment-on-a-commented-post reach the right people', async () => {
		const postId = await newPost(alice, { text: 'discuss' })
		const bobsComment = await comment(bob, postId, 'first')
		const reply = await comment(carol, postId, `reply to bob ${tag(dave)}`, bobsComment)

		const [onPost] = ofEntity(await feed(alice), postId, 7)
		expect(onPost.action_by).toEqual([bob.uuid, carol.uuid])
		expect(onPost.cta).toBe(`route://post_detail?post_id=${postId}&comment_id=${reply}`)

		const [replied] = ofEntity(await feed(bob), bobsComment, 9)
		expect(replied.entity_type).toBe(1)
		expect(replied.action_by).toEqual([carol.uuid])
		expect(replied.activity_entity_data._id).toBe(bobsComment)
		expect(replied.activity_text).toContain('replied to your comment')

		const [tagged] = ofEntity(await feed(dave), reply, 11)
		expect(tagged.action_by).toEqual([carol.uuid])
		// Bob was notified as the one replied to, so he gets no 12 for the same comment.
		expect(ofEntity(await feed(bob), postId, 12)).toHaveLength(0)
		await comment(dave, postId, 'me too')
		const [followed] = ofEntity(await feed(bob), postId, 12)
		expect(followed.action_by).toEqual([dave.uuid])
		expect(ofEntity(await feed(carol), postId, 12)[0].action_by).toEqual([dave.uuid])
		expect(ofEntity(await feed(alice), postId, 12)).toHaveLength(0)
	})

	test('a tag in a post notifies the tagged user; deleting the post takes it along', async () => {
		const postId = await newPost(bob, { text: `hi ${tag(carol)}` })
		expect(ofEntity(await feed(carol), postId, 10)).toHaveLength(1)
		const deleted = await api('DELETE', `/feed/post/${postId}`, { token: bob.token })
		expect(deleted.status).toBe(200)
		expect(ofEntity(await feed(carol), postId, 10)).toHaveLength(0)
	})

	test('a back-dated like or comment notifies nobody (a current one beside it does)', async () => {
		const postId = await newPost(dave)
		const old = Date.now() - 86_400_000
		await api('PUT', `/feed/post/${postId}/like`, { token: bob.token, body: { created_at: old } })
		await api('POST', `/feed/post/${postId}/comment`, {
			token: bob.token,
			body: { text: 'from the archive', created_at: old },
		})
		await like(carol, postId)
		const data = await feed(dave)
		expect(ofEntity(data, postId, 6).map((a) => a.action_by)).toEqual([[carol.uuid]])
		expect(ofEntity(data, postId, 7)).toHaveLength(0)
	})

	test('a back-dated post tags nobody into the feed', async () => {
		const postId = await newPost(bob, {
			text: `old ${tag(dave)}`,
			created_at: Date.now() - 86_400_000,
		})
		expect(ofEntity(await feed(dave), postId, 10)).toHaveLength(0)
	})

	test('deleting a comment takes its activities along', async () => {
		const postId = await newPost(alice)
		const commentId = await comment(dave, postId, 'soon gone')
		await like(bob, postId)
		await api('PUT', `/feed/post/${postId}/comment/${commentId}/like`, { token: carol.token })
		expect(ofEntity(await feed(dave), commentId, 8)).toHaveLength(1)
		await api('DELETE', `/feed/post/${postId}/comment/${commentId}`, { token: dave.token })
		expect(ofEntity(await feed(dave), commentId, 8)).toHaveLength(0)
		expect(ofEntity(await feed(alice), postId, 7)).toHaveLength(0)
		expect(ofEntity(await feed(alice), postId, 6)).toHaveLength(1)
	})
})

describe('connections', () => {
	test('a request notifies the target (100) and the accept the requester (101)', async () => {
		await enableConnections(community)
		const a = await newUser(community, { name: 'Requester' })
		const b = await newUser(community, { name: 'Target' })
		const asked = await api('POST', `/community/member/${b.uuid}/connection`, {
			token: a.token,
			body: { connection_type: 'two_way' },
		})
		expect(asked.status).toBe(200)
		const [request] = ofEntity(await feed(b), a.uuid, 100)
		expect(request.entity_type).toBe(2)
		expect(request.activity_entity_data.uuid).toBe(a.uuid)
		expect(request.cta).toBe(`route://user_profile/${a.uuid}`)
		await api('PATCH', `/community/member/${a.uuid}/connection`, {
			token: b.token,
			body: { action: 'accept', connection_type: 'two_way' },
		})
		const [accepted] = ofEntity(await feed(a), b.uuid, 101)
		expect(accepted.activity_text).toContain('accepted your connection request')
	})

	test('an auto-accepted request notifies the requester (101) as a manual accept does', async () => {
		await enableConnections(community)
		const a = await newUser(community, { name: 'Eager' })
		const b = await newUser(community, { name: 'Open' })
		const asked = await api('POST', `/community/member/${b.uuid}/connection`, {
			token: a.token,
			body: { connection_type: 'one_way', connection_request_auto_accepted: true },
		})
		expect(asked.status).toBe(200)
		expect(asked.body.data.status).toBe('accepted')
		const [accepted] = ofEntity(await feed(a), b.uuid, 101)
		expect(accepted.action_by).toEqual([b.uuid])
		expect(accepted.activity_entity_data.uuid).toBe(b.uuid)
		expect(accepted.activity_text).toBe(
			`<<Open|route://user_profile/${b.uuid}>> accepted your connection request`,
		)
		expect(await unread(a)).toBe(1)
		// no pending request was ever shown to the target
		expect(ofEntity(await feed(b), a.uuid, 100)).toHaveLength(0)
	})
})

describe('routes', () => {
	test('x-accept-version: v1 names action and entity_type', async () => {
		const postId = await newPost(dave)
		await like(alice, postId)
		const [group] = ofEntity(await feed(dave), postId, 6)
		expect(group.action).toBe(6)
		const v1 = await feed(dave, { 'x-accept-version': 'v1' })
		const named = v1.activities.find((a: any) => a._id === group._id)
		expect(named.action).toBe('like_on_your_post')
		expect(named.entity_type).toBe('post')
	})

	test('mark_read of another user’s or an unknown activity is 404; all, form-encoded, works', async () => {
		const postId = await newPost(carol)
		await like(bob, postId)
		const [group] = ofEntity(await feed(carol), postId, 6)
		const foreign = await api('POST', `/feed/user/activity/${group._id}/mark_read`, {
			token: bob.token,
		})
		expect(foreign.status).toBe(404)
		const unknown = await api('POST', '/feed/user/activity/0123456789abcdef01234567/mark_read', {
			token: carol.token,
		})
		expect(unknown.status).toBe(404)
		expect(await unread(carol)).toBeGreaterThan(0)
		const all = await api('POST', '/feed/user/activity/mark_read', {
			token: carol.token,
			rawBody: 'source=app',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
		})
		expect(all.status).toBe(200)
		expect(await unread(carol)).toBe(0)
	})

	test('the feed needs a token', async () => {
		expect((await api('GET', '/feed/user/activity')).status).toBe(401)
	})
})
