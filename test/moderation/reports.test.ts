// Reports through the HTTP API: tags (seeded, CM-edited, "other" needs a reason), one open
// report per reporter and entity, the reported post gone for its reporter in every read
// at once while others still see it, held back from everyone but CMs past the
// community's threshold, the review queue (CMs only, one community), closing with the
// SDK's actions, the report.created / report.closed events and the reporter's notice.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { eventsFor, feed, ids, newPost, tag } from '../support/content'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser
let reporter: TestUser
let bystander: TestUser
let cm: TestUser
let tags: { id: number; name: string }[]

const tagId = (name: string) => (tags.find((t) => t.name === name) as { id: number }).id

const report = (user: TestUser, body: Record<string, unknown>) =>
	api('POST', '/community/report', { token: user.token, body })

const reportPost = (user: TestUser, postId: string, tag = 'spam', reason?: string) =>
	report(user, {
		entity_id: postId,
		entity_type: 'post',
		accused_uuid: author.uuid,
		tag_id: tagId(tag),
		reason,
	})

/** Every read a member has of a post: universal feed, personalised feed, the author's list, the post page. */
async function reads(user: TestUser, postId: string) {
	const [universal, personalised, list, page] = await Promise.all([
		feed(user),
		feed(user, '', '/feed/personalised'),
		api('GET', `/feed/user/${author.uuid}/post`, { token: user.token }),
		api('GET', `/feed/post/${postId}`, { token: user.token }),
	])
	return {
		universal: ids(universal.posts).includes(postId),
		personalised: ids(personalised.posts).includes(postId),
		list: ids(list.body.data.posts).includes(postId),
		page: page.status === 200,
	}
}
const everywhere = { universal: true, personalised: true, list: true, page: true }
const nowhere = { universal: false, personalised: false, list: false, page: false }

beforeAll(async () => {
	community = await newCommunity('reports')
	author = await newUser(community)
	reporter = await newUser(community)
	bystander = await newUser(community)
	cm = await newUser(community, { role: 'cm' })
	const reply = await api('GET', '/community/report/tag?entity_type=post', {
		token: reporter.token,
	})
	expect(reply.status).toBe(200)
	tags = reply.body.data.report_tags
})

describe('report tags', () => {
	test('every entity type starts with the defaults; "other" needs a reason', async () => {
		expect(tags.map((t) => t.name)).toEqual([
			'spam',
			'harassment',
			'hate',
			'nudity',
			'violence',
			'misinformation',
			'other',
		])
		const member = await api('GET', '/community/report/tag?entity_type=member', { token: cm.token })
		expect(member.body.data.report_tags.length).toBe(7)
		const bad = await api('GET', '/community/report/tag?entity_type=planet', { token: cm.token })
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain('entity_type')
	})

	test('CMs add and remove tags; members cannot', async () => {
		const denied = await api('POST', '/community/report/tag', {
			token: reporter.token,
			body: { entity_type: 'post', name: 'scam' },
		})
		expect(denied.status).toBe(403)
		const added = await api('POST', '/community/report/tag', {
			token: cm.token,
			body: { entity_type: 'post', name: 'scam' },
		})
		expect(added.status).toBe(200)
		const id = added.body.data.report_tag.id
		let list = await api('GET', '/community/report/tag?entity_type=post', { token: cm.token })
		expect(list.body.data.report_tags.map((t: { name: string }) => t.name)).toContain('scam')
		const removed = await api('DELETE', `/community/report/tag/${id}`, { token: cm.token })
		expect(removed.status).toBe(200)
		list = await api('GET', '/community/report/tag?entity_type=post', { token: cm.token })
		expect(list.body.data.report_tags.map((t: { name: string }) => t.name)).not.toContain('scam')
	})
})

describe('reporting a post', () => {
	test('bad input names the field; "other" without a reason is refused', async () => {
		const postId = await newPost(author)
		const noTag = await report(reporter, { entity_id: postId, entity_type: 'post', tag_id: 999999 })
		expect(noTag.status).toBe(400)
		expect(noTag.body.error_message).toContain('tag_id')
		const noType = await report(reporter, { entity_id: postId, tag_id: tagId('spam') })
		expect(noType.status).toBe(400)
		expect(noType.body.error_message).toContain('entity_type')
		const other = await reportPost(reporter, postId, 'other')
		expect(other.status).toBe(400)
		expect(other.body.error_message).toContain('reason')
		const unknown = await reportPost(reporter, 'aaaaaaaaaaaaaaaaaaaaaaaa')
		expect(unknown.status).toBe(404)
		const own = await report(author, {
			entity_id: postId,
			entity_type: 'post',
			tag_id: tagId('spam'),
		})
		expect(own.status).toBe(400)
		// Positive control: the post is still there for the would-be reporter.
		expect(await reads(reporter, postId)).toEqual(everywhere)
	})

	test('the reporter never sees the post again; everyone else still does', async () => {
		const postId = await newPost(author)
		// Warm every read first, so a kept page or cached post cannot stand in for the rule.
		expect(await reads(reporter, postId)).toEqual(everywhere)
		expect(await reads(bystander, postId)).toEqual(everywhere)
		const filed = await reportPost(reporter, postId, 'other', 'looks like a scam')
		expect(filed.status).toBe(200)
		expect(filed.body.data.report.reason).toBe('looks like a scam')
		expect(await reads(reporter, postId)).toEqual(nowhere)
		expect(await reads(bystander, postId)).toEqual(everywhere)
		expect(await reads(author, postId)).toEqual(everywhere)
		// Engaging with it is refused too: its comments and likes are a 404.
		const like = await api('POST', `/feed/post/${postId}/like`, { token: reporter.token })
		expect(like.status).toBe(404)
		// Gone for them: a second report finds no post to report.
		const again = await reportPost(reporter, postId)
		expect(again.status).toBe(404)
		const events = await eventsFor(community, 'report.created')
		const created = events.find((e) => e.report.entity_id === postId)
		expect(created.report.tag.name).toBe('other')
		expect(created.reported_by.uuid).toBe(reporter.uuid)
		expect(created.accused.uuid).toBe(author.uuid)
	})

	test('past the threshold the post is held back from all but CMs until one approves it', async () => {
		const set = await api('PUT', '/community/settings/moderation', {
			token: cm.token,
			body: { auto_hide_after_reports: 2 },
		})
		expect(set.status).toBe(200)
		const postId = await newPost(author)
		const second = await newUser(community)
		expect(await reads(bystander, postId)).toEqual(everywhere)
		expect((await reportPost(reporter, postId)).status).toBe(200)
		// One reporter: still shown to the others.
		expect(await reads(bystander, postId)).toEqual(everywhere)
		expect((await reportPost(second, postId, 'hate')).status).toBe(200)
		expect(await reads(bystander, postId)).toEqual(nowhere)
		// CMs find it on its page and in the queue (no shared feed page differs for them).
		expect(await reads(cm, postId)).toEqual({ ...nowhere, page: true })
		const queue = await api('GET', '/community/report?filter_type=["post"]', { token: cm.token })
		const group = queue.body.data.reports_data.find(
			(g: { entity_id: string }) => g.entity_id === postId,
		)
		expect(group.reports_count).toBe(2)
		expect(group.reporters_count).toBe(2)
		const approved = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [group.reports[0].id], action_taken: 'POST_APPROVED' },
		})
		expect(approved.status).toBe(200)
		// Approval closes both reports and lets the post go; its reporters keep it hidden.
		expect(approved.body.data.reports.length).toBe(2)
		expect(await reads(bystander, postId)).toEqual(everywhere)
		expect(await reads(reporter, postId)).toEqual(nowhere)
		const closed = await eventsFor(community, 'report.closed')
		expect(closed.filter((e) => e.report.entity_id === postId).length).toBe(2)
		expect(closed.find((e) => e.report.entity_id === postId).closed_by.uuid).toBe(cm.uuid)
		await api('PUT', '/community/settings/moderation', {
			token: cm.token,
			body: { auto_hide_after_reports: 3 },
		})
	})
})

describe('the review queue', () => {
	test('a member gets 403; bad filters name the field', async () => {
		const member = await api('GET', '/community/report', { token: reporter.token })
		expect(member.status).toBe(403)
		const bad = await api('GET', '/community/report?is_closed=maybe', { token: cm.token })
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain('is_closed')
		const badType = await api('GET', '/community/report?filter_type=["planet"]', {
			token: cm.token,
		})
		expect(badType.status).toBe(400)
		expect(badType.body.error_message).toContain('filter_type')
		const badAction = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [1], action_taken: 'EXPLODE' },
		})
		expect(badAction.status).toBe(400)
		expect(badAction.body.error_message).toContain('action_taken')
	})

	test('reject deletes the post for everyone and closes the reports; the reporter is told', async () => {
		const postId = await newPost(author)
		const filed = await reportPost(reporter, postId, 'violence')
		const id = filed.body.data.report.id
		expect(await reads(bystander, postId)).toEqual(everywhere)
		const open = await api('GET', '/community/report?is_closed=false', { token: cm.token })
		const group = open.body.data.reports_data.find(
			(g: { entity_id: string }) => g.entity_id === postId,
		)
		expect(group.reports[0].reported_by_user.uuid).toBe(reporter.uuid)
		expect(group.reports[0].accused_user.uuid).toBe(author.uuid)
		expect(group.reports[0].tag.name).toBe('violence')
		expect(open.body.data.posts[postId].text).toBe('hello')
		const rejected = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [id], action_taken: 'POST_REJECTED' },
		})
		expect(rejected.status).toBe(200)
		expect(await reads(bystander, postId)).toEqual(nowhere)
		const closed = await api('GET', '/community/report?is_closed=true', { token: cm.token })
		const done = closed.body.data.reports_data.find(
			(g: { entity_id: string }) => g.entity_id === postId,
		)
		expect(done.reports[0].is_closed).toBe(true)
		expect(done.reports[0].closed_by.uuid).toBe(cm.uuid)
		expect(done.reports[0].action_taken).toBe(10) // the SDK's ActionTaken.POST_REJECTED
		expect(typeof done.reports[0].closed_on).toBe('number')
		const stillOpen = await api('GET', '/community/report?is_closed=false', { token: cm.token })
		expect(
			stillOpen.body.data.reports_data.map((g: { entity_id: string }) => g.entity_id),
		).not.toContain(postId)
		const activity = await api('GET', '/feed/user/activity', { token: reporter.token })
		expect(JSON.stringify(activity.body)).toContain('reviewed your report')
	})

	test('comments and members are reported and listed by type; nothing of another community shows', async () => {
		const postId = await newPost(author)
		const comment = await api('POST', `/feed/post/${postId}/comment`, {
			token: author.token,
			body: { text: 'a comment' },
		})
		expect(comment.status).toBe(200)
		const commentId = comment.body.data.comment._id ?? comment.body.data.comment.id
		const memberTags = (
			await api('GET', '/community/report/tag?entity_type=member', { token: reporter.token })
		).body.data.report_tags
		expect(
			(
				await report(reporter, {
					entity_id: commentId,
					entity_type: 'comment',
					tag_id: tagId('spam'),
				})
			).status,
		).toBe(200)
		// The reported comment is gone from the reporter's comment page, not from others'.
		const commentsOf = async (user: TestUser) =>
			(await api('GET', `/feed/post/${postId}`, { token: user.token })).body.data.post.replies.map(
				(r: { _id?: string; id?: string }) => r._id ?? r.id,
			)
		expect(await commentsOf(reporter)).not.toContain(commentId)
		expect(await commentsOf(bystander)).toContain(commentId)
		const member = { entity_id: author.uuid, entity_type: 'member', tag_id: memberTags[0].id }
		expect((await report(reporter, member)).status).toBe(200)
		// One open report per reporter and entity.
		const twice = await report(reporter, member)
		expect(twice.status).toBe(409)
		const comments = await api('GET', '/community/report?filter_type=["comment"]', {
			token: cm.token,
		})
		expect(comments.body.data.reports_data.map((g: { entity_id: string }) => g.entity_id)).toEqual([
			commentId,
		])
		expect(comments.body.data.comments[commentId].text).toBe('a comment')
		const members = await api('GET', '/community/report?filter_type=member', { token: cm.token })
		expect(members.body.data.reports_data.map((g: { entity_id: string }) => g.entity_id)).toEqual([
			author.uuid,
		])
		// A CM of another community sees none of it, and cannot close it.
		const elsewhere = await newCommunity('reports-other')
		const otherCm = await newUser(elsewhere, { role: 'cm' })
		const theirs = await api('GET', '/community/report', { token: otherCm.token })
		expect(theirs.status).toBe(200)
		expect(theirs.body.data.reports_data).toEqual([])
		const id = members.body.data.reports_data[0].reports[0].id
		const steal = await api('PATCH', '/community/report', {
			token: otherCm.token,
			body: { report_ids: [id], action_taken: 'EDIT_MEMBER_PERMISSION' },
		})
		expect(steal.status).toBe(404)
		// Nor can a member of another community report this community's post.
		const stranger = await newUser(elsewhere)
		const cross = await report(stranger, {
			entity_id: postId,
			entity_type: 'post',
			tag_id: tagId('spam'),
		})
		expect([400, 404]).toContain(cross.status)
	})
})

describe('notifications', () => {
	test("a reported post leaves the reporter's notification feed, not others'", async () => {
		const text = `tagging ${tag(reporter)} and ${tag(bystander)} ${Date.now()}`
		const postId = await newPost(author, { text })
		const activity = async (user: TestUser) =>
			JSON.stringify((await api('GET', '/feed/user/activity', { token: user.token })).body)
		// Read first, so a kept activity page would stand in for the rule.
		expect(await activity(reporter)).toContain(text.slice(0, 20))
		expect((await reportPost(reporter, postId)).status).toBe(200)
		expect(await activity(reporter)).not.toContain(text.slice(0, 20))
		expect(await activity(bystander)).toContain(text.slice(0, 20))
	})
})

describe('removing the accused', () => {
	test('REMOVE_FROM_COMMUNITY closes a member report and the member leaves at once', async () => {
		const troll = await newUser(community)
		const other = await newUser(community)
		const tags = await api('GET', '/community/report/tag?entity_type=member', {
			token: reporter.token,
		})
		const filed = await report(reporter, {
			entity_type: 'member',
			entity_id: troll.uuid,
			tag_id: tags.body.data.report_tags[0].id,
		})
		expect(filed.status).toBe(200)
		// Positive control: the member reads feeds before the decision.
		expect((await api('GET', '/feed/universal', { token: troll.token })).status).toBe(200)
		const closed = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [filed.body.data.report.id], action_taken: 'REMOVE_FROM_COMMUNITY' },
		})
		expect(closed.status).toBe(200)
		expect(closed.body.data.reports[0].action_taken).toBe(1) // the SDK's ActionTaken.REMOVE_FROM_COMMUNITY
		expect((await api('GET', '/feed/universal', { token: troll.token })).status).toBe(401)
		expect((await api('GET', '/feed/universal', { token: other.token })).status).toBe(200)
	})
})

describe('hide', () => {
	test('PUT /feed/post/:id/hide hides the post for the viewer alone', async () => {
		const postId = await newPost(author)
		expect(await reads(reporter, postId)).toEqual(everywhere)
		const hidden = await api('PUT', `/feed/post/${postId}/hide`, { token: reporter.token })
		expect(hidden.status).toBe(200)
		expect(await reads(reporter, postId)).toEqual(nowhere)
		expect(await reads(bystander, postId)).toEqual(everywhere)
		const unknown = await api('PUT', '/feed/post/aaaaaaaaaaaaaaaaaaaaaaaa/hide', {
			token: reporter.token,
		})
		expect(unknown.status).toBe(404)
	})
})
