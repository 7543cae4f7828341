// The notification feed read from its per-user Redis copy: exact under concurrent
// likes and unlikes (the copy, written after commit in whatever order commits finish,
// equals a rebuild from Postgres), rebuilt when lost, kept in step by mark_read and
// deletes, and correct past its cap (pages and total_count from Postgres there); page 1
// kept rendered in the process shows every change at the next read.
import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { ACTIVITY_CACHE_MAX } from '../../src/modules/notifications/store'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createTopic, newPost, tag } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('activity-copy')
	cm = await newUser(community, { role: 'cm', name: 'Manager' })
})

const page = async (user: TestUser, n = 1, size = 100) => {
	const reply = await api('GET', `/feed/user/activity?page=${n}&page_size=${size}`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data
}
const unread = async (user: TestUser) =>
	(await api('GET', '/feed/user/activity/unread_count', { token: user.token })).body.data.count
const like = (user: TestUser, postId: string) =>
	api('PUT', `/feed/post/${postId}/like`, { token: user.token })
/** Drops the user's copy: the next read rebuilds it from Postgres. */
const dropCopy = (user: TestUser) => redis.del(keys.activityMeta(user.id))
const copyExists = async (user: TestUser) => (await redis.exists(keys.activityMeta(user.id))) === 1
const shape = (data: { activities: any[]; total_count: number }) => ({
	total: data.total_count,
	groups: data.activities.map((a) => [a._id, a.action_by, a.activity_text, a.is_read]),
})

describe('the Redis copy', () => {
	test('50 parallel likes: unread exact, and the copy equals a rebuild from Postgres', async () => {
		const author = await newUser(community, { name: 'Author' })
		const fans = await Promise.all(
			Array.from({ length: 10 }, (_, i) => newUser(community, { name: `Fan${i}` })),
		)
		const posts = await Promise.all(Array.from({ length: 5 }, () => newPost(author)))
		await page(author) // the copy exists before the likes arrive
		expect(await copyExists(author)).toBe(true)
		const replies = await Promise.all(
			fans.flatMap((fan) => posts.map((postId) => like(fan, postId))),
		)
		expect(replies.every((r) => r.status === 200)).toBe(true)
		expect(await unread(author)).toBe(5)
		const fromCopy = await page(author)
		expect(fromCopy.activities).toHaveLength(5)
		for (const group of fromCopy.activities) expect(group.action_by).toHaveLength(10)
		expect(fromCopy.activities[0].activity_text).toContain('and 9 others liked your post')
		await dropCopy(author)
		expect(shape(await page(author))).toEqual(shape(fromCopy))
		expect(await unread(author)).toBe(5)
	})

	test('parallel likes and unlikes: the copy keeps the newest version of each group', async () => {
		const author = await newUser(community, { name: 'Owner' })
		const fans = await Promise.all(
			Array.from({ length: 12 }, (_, i) => newUser(community, { name: `Toggler${i}` })),
		)
		const postId = await newPost(author)
		await page(author)
		// Every fan likes; half unlike at once with the others' likes still arriving.
		await Promise.all(fans.map((fan) => like(fan, postId)))
		await Promise.all(fans.filter((_, i) => i % 2 === 0).map((fan) => like(fan, postId)))
		const fromCopy = await page(author)
		const [group] = fromCopy.activities
		expect([...group.action_by].sort()).toEqual(
			fans
				.filter((_, i) => i % 2 === 1)
				.map((f) => f.uuid)
				.sort(),
		)
		await dropCopy(author)
		expect(shape(await page(author))).toEqual(shape(fromCopy))
		// All unlike: the group is gone from the copy and from Postgres.
		await Promise.all(fans.filter((_, i) => i % 2 === 1).map((fan) => like(fan, postId)))
		expect((await page(author)).activities).toHaveLength(0)
		expect(await unread(author)).toBe(0)
		await dropCopy(author)
		expect((await page(author)).activities).toHaveLength(0)
	})

	test('a lost copy is rebuilt; mark_read and a deleted post change the copy', async () => {
		const author = await newUser(community, { name: 'Reader' })
		const fan = await newUser(community, { name: 'Liker' })
		const [first, second] = [await newPost(author), await newPost(author)]
		await like(fan, first)
		await like(fan, second)
		await dropCopy(author)
		expect(await unread(author)).toBe(2) // rebuilt here
		expect(await copyExists(author)).toBe(true)
		const [newest] = (await page(author)).activities
		expect(newest.entity_id).toBe(second)
		const marked = await api('POST', `/feed/user/activity/${newest._id}/mark_read`, {
			token: author.token,
		})
		expect(marked.status).toBe(200)
		expect(await unread(author)).toBe(1)
		expect((await page(author)).activities.map((a: any) => a.is_read)).toEqual([true, false])
		const deleted = await api('DELETE', `/feed/post/${first}`, {
			token: author.token,
			body: { reason: 'gone' },
		})
		expect(deleted.status).toBe(200)
		expect(await unread(author)).toBe(0)
		const after = await page(author)
		expect(after.activities.map((a: any) => a.entity_id)).toEqual([second])
		expect(after.total_count).toBe(1)
	})

	test('the page is read from the copy: a change behind its back shows only after a rebuild', async () => {
		const member = await newUser(community, { name: 'Cached' })
		const postId = await newPost(cm)
		const body = {
			action: 'custom_activity',
			action_on: [member.uuid],
			entity_type: 'post',
			entity_id: postId,
			activity_text: 'before',
		}
		expect((await api('POST', '/feed/user/activity', { token: cm.token, body })).status).toBe(200)
		const [activity] = (await page(member)).activities
		expect(activity.activity_text).toBe('before')
		await sql`update activities set custom_text = 'behind its back' where id = ${activity._id}`
		expect((await page(member)).activities[0].activity_text).toBe('before')
		await dropCopy(member)
		expect((await page(member)).activities[0].activity_text).toBe('behind its back')
	})

	test('the page embeds the post as the feeds show it, with its topics, author and actors', async () => {
		const author = await newUser(community, { name: 'Topical' })
		const fan = await newUser(community, { name: 'Fan' })
		const topicId = await createTopic(cm, `topic-${Date.now()}`)
		const postId = await newPost(author, { text: 'with a topic', topic_ids: [topicId] })
		await like(fan, postId)
		const data = await page(author)
		const [activity] = data.activities
		const post = activity.activity_entity_data
		expect(post._id).toBe(postId)
		expect(post.topics).toEqual([topicId])
		expect(post.is_liked).toBe(false)
		expect(Array.isArray(post.menu_items)).toBe(true)
		expect(data.topics[topicId].id).toBe(topicId)
		expect(data.widgets).toEqual({})
		expect(data.users[author.uuid].name).toBe('Topical')
		expect(data.users[fan.uuid].name).toBe('Fan')
		// The same post as the universal feed shows it to the same viewer.
		const universal = await api('GET', '/feed/universal?page_size=50', { token: author.token })
		const inFeed = universal.body.data.posts.find((p: any) => p._id === postId)
		expect(post).toEqual(inFeed)
	})

	test('a warm copy’s next read shows the viewer’s new like, save and block, and a rename', async () => {
		const viewer = await newUser(community, { name: 'Watcher' })
		const fan = await newUser(community, { name: 'Admirer' })
		const tagger = await newUser(community, { name: 'Tagger' })
		const own = await newPost(viewer)
		await like(fan, own)
		const tagged = await newPost(tagger, { text: `hi ${tag(viewer)}` })
		const of = (data: { activities: any[] }, entityId: string) =>
			data.activities.find((a) => a.entity_id === entityId)
		let data = await page(viewer) // the copy and the viewer's sets are loaded from here on
		expect(of(data, own).activity_entity_data.is_liked).toBe(false)
		expect(of(data, own).activity_entity_data.is_saved).toBe(false)
		expect(of(data, tagged).action).toBe(10)
		await like(viewer, own)
		expect((await api('PUT', `/feed/post/${own}/save`, { token: viewer.token })).status).toBe(200)
		const renamed = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: fan.uniqueId, user_name: 'Admirer Renamed' },
		})
		expect(renamed.status).toBe(200)
		const blocked = await api('PUT', `/user/${viewer.uuid}/block`, {
			token: viewer.token,
			body: { uuid: tagger.uuid, shouldBlock: true },
		})
		expect(blocked.status).toBe(200)
		data = await page(viewer)
		const post = of(data, own).activity_entity_data
		expect([post.is_liked, post.is_saved, post.likes_count]).toEqual([true, true, 2])
		expect(of(data, own).activity_text).toBe(
			`<<Admirer Renamed|route://user_profile/${fan.uuid}>> liked your post`,
		)
		expect(data.users[fan.uuid].name).toBe('Admirer Renamed')
		expect(of(data, tagged)).toBeUndefined()
	})

	test('a kept page 1 follows a role change at the next read (its menus are the role’s)', async () => {
		const viewer = await newUser(community, { name: 'Promoted' })
		const fan = await newUser(community, { name: 'Fan of Promoted' })
		// Tagged in the fan's post: the post is not the viewer's, so its menu is the role's.
		await newPost(fan, { text: `hi ${tag(viewer)}` })
		const menu = async () =>
			((await page(viewer)).activities[0].activity_entity_data.menu_items as { id: number }[])
				.map((item) => item.id)
				.join(',')
		const asMember = await menu()
		expect(await menu()).toBe(asMember) // kept
		const grant = await api('PATCH', '/moderation/rights', {
			token: cm.token,
			body: { uuid: viewer.uuid, is_cm: true },
		})
		expect(grant.status).toBe(200)
		const asCm = await menu()
		expect(asCm).not.toBe(asMember)
		const removed = await api('PATCH', '/moderation/rights', {
			token: cm.token,
			body: { uuid: viewer.uuid, is_cm: false },
		})
		expect(removed.status).toBe(200)
		expect(await menu()).toBe(asMember)
	})

	test('a kept page 1 is served until the copy’s version moves (positive control)', async () => {
		const viewer = await newUser(community, { name: 'Kept' })
		const postId = await newPost(cm)
		const body = {
			action: 'custom_activity',
			action_on: [viewer.uuid],
			entity_type: 'post',
			entity_id: postId,
			activity_text: 'as kept',
		}
		expect((await api('POST', '/feed/user/activity', { token: cm.token, body })).status).toBe(200)
		const [activity] = (await page(viewer)).activities // rendered and kept
		// The record changed in the copy without its version: the kept page still answers…
		const rows = keys.activityRows(viewer.id)
		const record = (await redis.hget(rows, activity._id)) as string
		await redis.hset(rows, activity._id, record.replace('"as kept"', '"changed in Redis"'))
		expect((await page(viewer)).activities[0].activity_text).toBe('as kept')
		// …until the version moves, as every writer of the copy moves it.
		await redis.hincrby(keys.activityMeta(viewer.id), 'page', 1)
		expect((await page(viewer)).activities[0].activity_text).toBe('changed in Redis')
	})

	test('a kept page 1 shows the next like, comment, unlike, mark_read and delete at once', async () => {
		const viewer = await newUser(community, { name: 'Warm' })
		const [fan, other] = [await newUser(community, { name: 'Fan A' }), await newUser(community)]
		const [liked, commented] = [await newPost(viewer), await newPost(viewer)]
		await like(fan, liked)
		const of = (data: { activities: any[] }, entityId: string, action: number) =>
			data.activities.find((a) => a.entity_id === entityId && a.action === action)
		await page(viewer)
		expect(of(await page(viewer), liked, 6).action_by).toEqual([fan.uuid]) // warm
		await like(other, liked)
		expect(of(await page(viewer), liked, 6).action_by).toEqual([fan.uuid, other.uuid])
		const replied = await api('POST', `/feed/post/${commented}/comment`, {
			token: fan.token,
			body: { text: 'first!' },
		})
		expect(replied.status).toBe(200)
		const comment = of(await page(viewer), commented, 7)
		expect(comment.activity_entity_data.comments_count).toBe(1)
		await like(other, liked) // unlike: the actor leaves the group
		expect(of(await page(viewer), liked, 6).action_by).toEqual([fan.uuid])
		const one = await api('POST', `/feed/user/activity/${comment._id}/mark_read`, {
			token: viewer.token,
		})
		expect(one.status).toBe(200)
		let data = await page(viewer)
		expect([of(data, commented, 7).is_read, of(data, liked, 6).is_read]).toEqual([true, false])
		const all = await api('POST', '/feed/user/activity/mark_read', { token: viewer.token })
		expect(all.status).toBe(200)
		expect(of(await page(viewer), liked, 6).is_read).toBe(true)
		const deleted = await api('DELETE', `/feed/post/${commented}`, {
			token: viewer.token,
			body: { reason: 'gone' },
		})
		expect(deleted.status).toBe(200)
		data = await page(viewer)
		expect(data.activities.map((a: any) => a.entity_id)).toEqual([liked])
		expect(data.total_count).toBe(1)
	})

	test('reads in parallel while page 1 is rendered again all show the change', async () => {
		const viewer = await newUser(community, { name: 'Busy' })
		const [fan, next] = [await newUser(community), await newUser(community)]
		const postId = await newPost(viewer)
		await like(fan, postId)
		expect((await page(viewer)).activities[0].action_by).toEqual([fan.uuid]) // kept
		await like(next, postId)
		const reads = await Promise.all(Array.from({ length: 8 }, () => page(viewer)))
		for (const data of reads) expect(data.activities[0].action_by).toEqual([fan.uuid, next.uuid])
	})

	test('a page with a comment shows the comment’s edit at once (such pages are not kept)', async () => {
		const viewer = await newUser(community, { name: 'Commenter' })
		const fan = await newUser(community)
		const postId = await newPost(cm)
		const made = await api('POST', `/feed/post/${postId}/comment`, {
			token: viewer.token,
			body: { text: 'before' },
		})
		const commentId = made.body.data.comment._id
		await api('PUT', `/feed/post/${postId}/comment/${commentId}/like`, { token: fan.token })
		const text = async () => (await page(viewer)).activities[0].activity_entity_data.text
		expect(await text()).toBe('before')
		expect(await text()).toBe('before')
		const edited = await api('PUT', `/feed/post/${postId}/comment/${commentId}`, {
			token: viewer.token,
			body: { text: 'after' },
		})
		expect(edited.status).toBe(200)
		expect(await text()).toBe('after')
	})

	test('a custom activity to many: users with a copy and without both see it', async () => {
		const recipients = await Promise.all(
			Array.from({ length: 24 }, (_, i) => newUser(community, { name: `Many${i}` })),
		)
		const withCopy = recipients.filter((_, i) => i % 2 === 0)
		await Promise.all(withCopy.map((user) => page(user)))
		expect(await copyExists(withCopy[0])).toBe(true)
		expect(await copyExists(recipients[1])).toBe(false)
		const postId = await newPost(cm)
		const reply = await api('POST', '/feed/user/activity', {
			token: cm.token,
			body: {
				action: 'custom_activity',
				action_on: recipients.map((r) => r.uuid),
				entity_type: 'post',
				entity_id: postId,
				activity_text: 'to many',
			},
		})
		expect(reply.status).toBe(200)
		for (const user of recipients) {
			const data = await page(user)
			expect(data.activities.map((a: any) => a.activity_text)).toEqual(['to many'])
			expect(await unread(user)).toBe(1)
		}
	})

	test('past the cap: pages and total_count come out right, unread stays exact', async () => {
		const member = await newUser(community, { name: 'Popular' })
		const postId = await newPost(cm)
		await page(member)
		const count = ACTIVITY_CACHE_MAX + 25
		for (let i = 0; i < count; i += 25)
			await Promise.all(
				Array.from({ length: Math.min(25, count - i) }, (_, j) =>
					api('POST', '/feed/user/activity', {
						token: cm.token,
						body: {
							action: 'custom_activity',
							action_on: [member.uuid],
							entity_type: 'post',
							entity_id: postId,
							activity_text: `notice ${i + j}`,
						},
					}).then((r) => expect(r.status).toBe(200)),
				),
			)
		expect(await unread(member)).toBe(count)
		const first = await page(member, 1, 100)
		expect(first.total_count).toBe(count)
		expect(first.activities).toHaveLength(100)
		const last = await page(member, Math.ceil(count / 100), 100)
		expect(last.activities).toHaveLength(count % 100)
		const seen = new Set<string>()
		for (let n = 1; n <= Math.ceil(count / 100); n++)
			for (const a of (await page(member, n, 100)).activities) seen.add(a._id)
		expect(seen.size).toBe(count)
		await dropCopy(member)
		expect(shape(await page(member, 1, 100))).toEqual(shape(first))
		expect(await unread(member)).toBe(count)
		const all = await api('POST', '/feed/user/activity/mark_read', { token: member.token })
		expect(all.status).toBe(200)
		expect(await unread(member)).toBe(0)
	}, 60_000)
})
