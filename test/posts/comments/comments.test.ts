import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../../support/community'
import { block } from '../../support/connections'
import { eventsFor, newPost, tag } from '../../support/content'
import { sql } from '../../support/db'
import { api } from '../../support/http'

let community: TestCommunity
let author: TestUser
let commenter: TestUser
let other: TestUser
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('comments')
	author = await newUser(community, { name: 'Author' })
	commenter = await newUser(community, { name: 'Commenter' })
	other = await newUser(community, { name: 'Other' })
	cm = await newUser(community, { name: 'Manager', role: 'cm' })
})

const comment = (
	postId: string,
	user: TestUser,
	text: string,
	extra: Record<string, unknown> = {},
) => api('POST', `/feed/post/${postId}/comment`, { token: user.token, body: { text, ...extra } })
const reply = (postId: string, commentId: string, user: TestUser, text: string) =>
	api('POST', `/feed/post/${postId}/comment/${commentId}/comment`, {
		token: user.token,
		body: { text },
	})
const ids = (menu: { id: number }[]) => menu.map((m) => m.id)

describe('POST /feed/post/:post_id/comment', () => {
	test('creates a level-1 comment in the spec shape, counts it, emits comment.added', async () => {
		const postId = await newPost(author)
		const created = await comment(postId, commenter, '  First!  ', { temp_id: 't-1', postId })
		expect(created.status).toBe(200)
		const c = created.body.data.comment
		expect(c).toMatchObject({
			temp_id: 't-1',
			text: 'First!',
			level: 1,
			uuid: commenter.uuid,
			community_id: community.communityId,
			post_id: postId,
			is_liked: false,
			likes_count: 0,
			comments_count: 0,
			is_edited: false,
			is_deleted: false,
			deleted_by: null,
			deleted_by_uuid: null,
			delete_reason: null,
			parent_comment: null,
			replies: [],
		})
		expect(c._id).toMatch(/^[0-9a-f]{24}$/)
		expect(ids(c.menu_items)).toEqual([6, 8])
		expect(c.menu_items[0]).toEqual({ id: 6, title: 'Delete' })
		expect(created.body.data.users[commenter.uuid].name).toBe('Commenter')
		expect(
			(await api('GET', `/feed/post/${postId}`, { token: author.token })).body.data.post
				.comments_count,
		).toBe(1)

		const events = (await eventsFor(community, 'comment.added')).filter(
			(e) => e.comment._id === c._id,
		)
		expect(events).toHaveLength(1)
		expect(Object.keys(events[0]).sort()).toEqual([
			'comment',
			'comment_creator',
			'post',
			'post_creator',
			'topics',
			'widgets',
		])
		expect(events[0].comment_creator.uuid).toBe(commenter.uuid)
		expect(events[0].post.comments_count).toBe(1)
	})

	test('tags in the text go to comment_tags and emit comment.tagged with tagged_users', async () => {
		const postId = await newPost(author)
		const created = await comment(
			postId,
			commenter,
			`hey ${tag(other)} and ${tag(author)} ${tag(other)}`,
		)
		const id = created.body.data.comment._id
		const tags =
			await sql`select user_id::float8 as user_id from comment_tags where comment_id = ${id} order by user_id`
		expect(tags.map((t) => t.user_id).sort()).toEqual([author.id, other.id].sort())
		const tagged = (await eventsFor(community, 'comment.tagged')).filter(
			(e) => e.comment._id === id,
		)
		expect(tagged).toHaveLength(1)
		expect(tagged[0].tagged_users.map((u: any) => u.uuid).sort()).toEqual(
			[author.uuid, other.uuid].sort(),
		)
		expect(tagged[0].comment_creator.uuid).toBe(commenter.uuid)
	})

	test('empty, missing, oversize text is 400; unknown and foreign posts 404', async () => {
		const postId = await newPost(author)
		expect((await comment(postId, commenter, '   ')).status).toBe(400)
		expect(
			(await api('POST', `/feed/post/${postId}/comment`, { token: commenter.token, body: {} }))
				.status,
		).toBe(400)
		expect((await comment(postId, commenter, 'x'.repeat(10_001))).status).toBe(400)
		expect((await comment('0123456789abcdef01234567', commenter, 'x')).status).toBe(404)
		const elsewhere = await newUser(await newCommunity('comments-other'))
		expect((await comment(postId, elsewhere, 'x')).status).toBe(404)
		const [{ comments_count }] = await sql`select comments_count from posts where id = ${postId}`
		expect(comments_count).toBe(0)
	})
})

describe('replies and GET /feed/post/:post_id/comment/:comment_id', () => {
	test('replies carry level and parent_comment; get shows the replies page; counters follow', async () => {
		const postId = await newPost(author)
		const root = (await comment(postId, commenter, 'root')).body.data.comment
		const r1 = await reply(postId, root._id, other, 'reply one')
		expect(r1.status).toBe(200)
		expect(r1.body.data.comment).toMatchObject({ level: 2, text: 'reply one' })
		expect(r1.body.data.comment.parent_comment).toMatchObject({
			_id: root._id,
			level: 1,
			comments_count: 1,
		})
		expect(Object.keys(r1.body.data.users).sort()).toEqual([commenter.uuid, other.uuid].sort())
		const deep = await reply(postId, r1.body.data.comment._id, author, 'deeper')
		expect(deep.body.data.comment.level).toBe(3)
		await reply(postId, root._id, author, 'reply two')

		const got = await api('GET', `/feed/post/${postId}/comment/${root._id}`, {
			token: author.token,
		})
		expect(got.status).toBe(200)
		const c = got.body.data.comment
		expect(c.comments_count).toBe(2)
		expect(c.replies.map((r: any) => r.text)).toEqual(['reply one', 'reply two'])
		expect(c.replies[0].comments_count).toBe(1)
		expect(got.body.data.total_count).toBe(2)
		// The post's author may delete others' comments (and report them).
		expect(ids(c.menu_items)).toEqual([6, 7])
		const paged = await api('GET', `/feed/post/${postId}/comment/${root._id}?page=2&page_size=1`, {
			token: other.token,
		})
		expect(paged.body.data.comment.replies.map((r: any) => r.text)).toEqual(['reply two'])
		expect(ids(paged.body.data.comment.menu_items)).toEqual([7])
		const [post] = await sql`select comments_count from posts where id = ${postId}`
		expect(post!.comments_count).toBe(4)
		await comment(postId, other, 'second root')
		const roots = await api('GET', `/feed/post/${postId}/comment?page_size=1&page=2`, {
			token: author.token,
		})
		expect(roots.status).toBe(200)
		expect(roots.body.data.comments.map((r: any) => r.text)).toEqual(['second root'])
		expect(roots.body.data.total_count).toBe(2)
		expect(Object.keys(roots.body.data.users)).toEqual([other.uuid])
	})

	test('unknown comment, a comment of another post, and replies to unknown comments are 404', async () => {
		const postA = await newPost(author)
		const postB = await newPost(author)
		const onA = (await comment(postA, commenter, 'on a')).body.data.comment
		expect(
			(await api('GET', `/feed/post/${postB}/comment/${onA._id}`, { token: author.token })).status,
		).toBe(404)
		expect(
			(await api('GET', `/feed/post/${postA}/comment/nope`, { token: author.token })).status,
		).toBe(404)
		expect((await reply(postB, onA._id, other, 'x')).status).toBe(404)
		expect((await reply(postA, '0123456789abcdef01234567', other, 'x')).status).toBe(404)
	})

	test('blocked users are hidden from each other in reply lists', async () => {
		const c = await newCommunity('comments-blocks')
		const [a, b, viewer] = await Promise.all([
			newUser(c, { name: 'A' }),
			newUser(c, { name: 'B' }),
			newUser(c),
		])
		const postId = await newPost(a)
		const root = (await comment(postId, a, 'root')).body.data.comment
		await reply(postId, root._id, b, 'from b')
		await reply(postId, root._id, a, 'from a')
		await block(c, viewer, b)
		const got = await api('GET', `/feed/post/${postId}/comment/${root._id}`, {
			token: viewer.token,
		})
		expect(got.body.data.comment.replies.map((r: any) => r.text)).toEqual(['from a'])
		expect(got.body.data.users[b.uuid]).toBeUndefined()
		const bReply = (
			await api('GET', `/feed/post/${postId}/comment/${root._id}`, { token: a.token })
		).body.data.comment.replies[0]
		expect(
			(await api('GET', `/feed/post/${postId}/comment/${bReply._id}`, { token: viewer.token }))
				.status,
		).toBe(404)
	})
})

describe('PUT and DELETE /feed/post/:post_id/comment/:comment_id', () => {
	test('the author edits (is_edited); others are 403; bad text 400', async () => {
		const postId = await newPost(author)
		const c = (await comment(postId, commenter, 'before')).body.data.comment
		const edit = await api('PUT', `/feed/post/${postId}/comment/${c._id}`, {
			token: commenter.token,
			body: { text: `after ${tag(other)}` },
		})
		expect(edit.status).toBe(200)
		expect(edit.body.data.comment).toMatchObject({ is_edited: true })
		expect(edit.body.data.comment.text).toStartWith('after')
		expect(
			(await eventsFor(community, 'comment.tagged')).filter((e) => e.comment._id === c._id),
		).toHaveLength(1)
		expect(
			(
				await api('PUT', `/feed/post/${postId}/comment/${c._id}`, {
					token: cm.token,
					body: { text: 'x' },
				})
			).status,
		).toBe(403)
		expect(
			(
				await api('PUT', `/feed/post/${postId}/comment/${c._id}`, {
					token: commenter.token,
					body: { text: '' },
				})
			).status,
		).toBe(400)
	})

	test('soft delete records deleted_by, deleted_by_uuid and the reason; counters drop; deleted is 404 for changes', async () => {
		const postId = await newPost(author)
		const root = (await comment(postId, commenter, 'root')).body.data.comment
		const child = (await reply(postId, root._id, other, 'child')).body.data.comment
		expect(
			(await api('DELETE', `/feed/post/${postId}/comment/${child._id}`, { token: commenter.token }))
				.status,
		).toBe(403)
		const del = await api('DELETE', `/feed/post/${postId}/comment/${child._id}`, {
			token: cm.token,
			body: { delete_reason: 'spam' },
		})
		expect(del.status).toBe(200)
		expect(del.body.data.comment).toMatchObject({
			is_deleted: true,
			deleted_by: String(cm.id),
			deleted_by_uuid: cm.uuid,
			delete_reason: 'spam',
			text: '',
			menu_items: [],
		})
		const parent = await api('GET', `/feed/post/${postId}/comment/${root._id}`, {
			token: author.token,
		})
		expect(parent.body.data.comment).toMatchObject({ comments_count: 0, replies: [] })
		expect(
			(await api('GET', `/feed/post/${postId}`, { token: author.token })).body.data.post
				.comments_count,
		).toBe(1)
		expect(
			(await api('DELETE', `/feed/post/${postId}/comment/${child._id}`, { token: cm.token }))
				.status,
		).toBe(404)
		expect(
			(
				await api('PUT', `/feed/post/${postId}/comment/${child._id}`, {
					token: other.token,
					body: { text: 'x' },
				})
			).status,
		).toBe(404)
		expect(
			(await api('PUT', `/feed/post/${postId}/comment/${child._id}/like`, { token: other.token }))
				.status,
		).toBe(404)
		expect((await reply(postId, child._id, other, 'x')).status).toBe(404)
		const own = await api('DELETE', `/feed/post/${postId}/comment/${root._id}`, {
			token: commenter.token,
			body: { reason: 'mine' },
		})
		expect(own.body.data.comment).toMatchObject({
			deleted_by_uuid: commenter.uuid,
			delete_reason: 'mine',
		})
	})
})

describe('comment likes', () => {
	test('toggle with exact likes_count, comment.react event, likes list with blocks hidden', async () => {
		const postId = await newPost(author)
		const c = (await comment(postId, commenter, 'like me')).body.data.comment
		const like = await api('PUT', `/feed/post/${postId}/comment/${c._id}/like`, {
			token: other.token,
		})
		expect(like.body.data).toEqual({ is_liked: true, likes_count: 1 })
		const seen = await api('GET', `/feed/post/${postId}/comment/${c._id}`, { token: other.token })
		expect(seen.body.data.comment).toMatchObject({ is_liked: true, likes_count: 1 })
		const react = (await eventsFor(community, 'comment.react')).filter(
			(e) => e.comment._id === c._id,
		)
		expect(react).toHaveLength(1)
		expect(react[0].liked_by_user.uuid).toBe(other.uuid)
		expect(react[0].comment.likes_count).toBe(1)

		await api('PUT', `/feed/post/${postId}/comment/${c._id}/like`, { token: author.token })
		const list = await api('GET', `/feed/post/${postId}/comment/${c._id}/like`, {
			token: commenter.token,
		})
		expect(list.body.data.total_count).toBe(2)
		expect(list.body.data.likes.map((l: any) => l.user_id)).toEqual([author.uuid, other.uuid])
		expect(list.body.data.users[other.uuid].name).toBe('Other')

		const blocker = await newUser(community)
		await block(community, blocker, author)
		const hidden = await api('GET', `/feed/post/${postId}/comment/${c._id}/like`, {
			token: blocker.token,
		})
		expect(hidden.body.data.likes.map((l: any) => l.user_id)).toEqual([other.uuid])

		const unlike = await api('PUT', `/feed/post/${postId}/comment/${c._id}/like`, {
			token: other.token,
		})
		expect(unlike.body.data).toEqual({ is_liked: false, likes_count: 1 })
	})

	test('parallel comment likes stay exact; unknown comment is 404', async () => {
		const postId = await newPost(author)
		const c = (await comment(postId, commenter, 'popular')).body.data.comment
		const users = await Promise.all(Array.from({ length: 20 }, () => newUser(community)))
		await Promise.all(
			users.map((u) =>
				api('PUT', `/feed/post/${postId}/comment/${c._id}/like`, { token: u.token }),
			),
		)
		const [row] = await sql`select likes_count from comments where id = ${c._id}`
		expect(row!.likes_count).toBe(20)
		expect(
			(await api('PUT', `/feed/post/${postId}/comment/nope/like`, { token: other.token })).status,
		).toBe(404)
		expect(
			(await api('GET', `/feed/post/${postId}/comment/nope/like`, { token: other.token })).status,
		).toBe(404)
	})
})
