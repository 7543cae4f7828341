// The visibility rule's two forms (src/lib/visibility.ts) held equal: for every
// (viewer, post) pair of a community planted through the HTTP API — deleted, private,
// connections-only posts, a follower and a stranger, blocks both ways, a CM, the author,
// a post hidden by its topics, a post the stranger hid and one the follower reported
// (gone for them alone), a post held back past the report threshold (CMs only, where
// hidden posts are kept), a post pending approval (its author and CMs, where hidden
// posts are kept), a viewer of another community — the SQL fragment and the
// in-memory twin give the same answer, and that answer is the one the rule states.
import { beforeAll, describe, expect, test } from 'bun:test'
import {
	mayView,
	mayViewSql,
	openTo,
	openToSql,
	type Place,
	type PostViewer,
	reachesFollowers,
	reachesFollowersSql,
} from '../../src/lib/visibility'
import { isBlockedBetween, isConnected } from '../../src/modules/connections/repo'
import { isHiddenFor } from '../../src/modules/posts/hides-repo'
import { type CachedPost, loadPosts } from '../../src/timelines'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { connect, enableConnections } from '../support/connections'
import { createTopic, newPost, setTopicEnabled } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
const people: Record<string, TestUser> = {}
const viewers: Record<string, PostViewer> = {}
const postIds: Record<string, string> = {}
let posts: CachedPost[] = []

const blockOf = async (me: TestUser, other: TestUser) => {
	const reply = await api('PUT', `/user/${me.uuid}/block`, {
		token: me.token,
		body: { uuid: other.uuid, shouldBlock: true },
	})
	expect(reply.status).toBe(200)
}

beforeAll(async () => {
	community = await newCommunity('visibility')
	await enableConnections(community)
	const other = await newCommunity('visibility-other')
	for (const name of ['author', 'follower', 'followed', 'stranger', 'blocker', 'blocked'])
		people[name] = await newUser(community)
	people.cm = await newUser(community, { role: 'cm' })
	people.elsewhere = await newUser(other)
	const { author, follower, followed, blocker, blocked, cm } = people as Record<string, TestUser>
	// follower follows the author; the author follows `followed` (who does not follow back).
	await connect(follower as TestUser, author as TestUser, 'one_way')
	await connect(author as TestUser, followed as TestUser, 'one_way')
	await blockOf(blocker as TestUser, author as TestUser)
	await blockOf(author as TestUser, blocked as TestUser)

	const a = author as TestUser
	postIds.public = await newPost(a, { visibility: 'public' })
	postIds.connections = await newPost(a, { visibility: 'connections' })
	postIds.private = await newPost(a, { visibility: 'private' })
	postIds.deleted = await newPost(a, { visibility: 'public' })
	const gone = await api('DELETE', `/feed/post/${postIds.deleted}`, { token: a.token })
	expect(gone.status).toBe(200)
	const topic = await createTopic(cm as TestUser, `vis-${Date.now()}`)
	postIds.hidden = await newPost(a, { visibility: 'public', topic_ids: [topic] })
	await setTopicEnabled(cm as TestUser, topic, false)
	postIds.followersPublic = await newPost(follower as TestUser, { visibility: 'public' })
	postIds.followersConnections = await newPost(follower as TestUser, { visibility: 'connections' })
	// Hidden for one viewer each: the stranger hides one, the follower reports the other.
	postIds.hiddenByStranger = await newPost(a, { visibility: 'public' })
	const hid = await api('PUT', `/feed/post/${postIds.hiddenByStranger}/hide`, {
		token: (people.stranger as TestUser).token,
	})
	expect(hid.status).toBe(200)
	postIds.reportedByFollower = await newPost(a, { visibility: 'public' })
	const tags = await api('GET', '/community/report/tag?entity_type=post', {
		token: (follower as TestUser).token,
	})
	const reportOf = (user: TestUser) =>
		api('POST', '/community/report', {
			token: user.token,
			body: {
				entity_type: 'post',
				entity_id: postIds.held,
				tag_id: tags.body.data.report_tags[0].id,
			},
		})
	const reported = await api('POST', '/community/report', {
		token: (follower as TestUser).token,
		body: {
			entity_type: 'post',
			entity_id: postIds.reportedByFollower,
			tag_id: tags.body.data.report_tags[0].id,
		},
	})
	expect(reported.status).toBe(200)
	// Pending: written while the community holds every new post for approval.
	const hold = (post_moderation: string) =>
		api('PUT', '/community/settings/moderation', {
			token: (cm as TestUser).token,
			body: { post_moderation },
		})
	expect((await hold('all')).status).toBe(200)
	postIds.pending = await newPost(a, { visibility: 'public' })
	expect((await hold('off')).status).toBe(200)
	// Held: three distinct reporters (the default threshold) who are not viewers here.
	postIds.held = await newPost(a, { visibility: 'public' })
	for (let i = 0; i < 3; i++) expect((await reportOf(await newUser(community))).status).toBe(200)

	for (const [name, user] of Object.entries(people))
		viewers[name] = {
			userId: user.id,
			communityId: name === 'elsewhere' ? other.communityId : community.communityId,
			isCm: name === 'cm',
		}
	posts = await loadPosts(sql, community.communityId, Object.values(postIds))
	expect(posts.length).toBe(Object.keys(postIds).length)
})

/** The posts of `ids` the SQL fragment lets the viewer see. */
async function bySql(viewer: PostViewer, place: Place): Promise<Set<string>> {
	const rows = await sql<{ id: string }[]>`
		select p.id from posts p where p.id = any(${posts.map((p) => p.id)}::text[])
		and ${mayViewSql(sql, 'p', viewer, place)}`
	return new Set(rows.map((r) => r.id))
}

/** The same posts by the in-memory twin, with the standing read by the connections repository. */
async function inMemory(viewer: PostViewer, place: Place): Promise<Set<string>> {
	const seen = new Set<string>()
	for (const post of posts) {
		const standing = {
			connected: await isConnected(sql, viewer.communityId, viewer.userId, post.user_id),
			blocked: await isBlockedBetween(sql, viewer.communityId, viewer.userId, post.user_id),
			hiddenByViewer: await isHiddenFor(sql, viewer.communityId, viewer.userId, post.id),
		}
		if (mayView(post, viewer, standing, place)) seen.add(post.id)
	}
	return seen
}

const named = (seen: Set<string>) =>
	Object.entries(postIds)
		.filter(([, id]) => seen.has(id))
		.map(([name]) => name)
		.sort()

describe('the visibility rule: SQL fragment and in-memory twin', () => {
	// What the rule states, per viewer (the place that drops hidden posts).
	const hides = ['hiddenByStranger', 'reportedByFollower']
	const expected: Record<string, string[]> = {
		author: ['connections', 'followersPublic', 'private', 'public', ...hides],
		follower: [
			'connections',
			'followersConnections',
			'followersPublic',
			'hiddenByStranger',
			'public',
		],
		followed: ['followersPublic', 'public', ...hides],
		stranger: ['followersPublic', 'public', 'reportedByFollower'],
		blocker: ['followersPublic'],
		blocked: ['followersPublic'],
		cm: ['connections', 'followersConnections', 'followersPublic', 'private', 'public', ...hides],
		elsewhere: [],
	}

	test('agree for every viewer and post, and say what the rule states', async () => {
		for (const [name, viewer] of Object.entries(viewers)) {
			const [fromSql, fromMemory] = [await bySql(viewer, {}), await inMemory(viewer, {})]
			expect({ name, seen: named(fromSql) }).toEqual({ name, seen: named(fromMemory) })
			expect({ name, seen: named(fromSql) }).toEqual({
				name,
				seen: [...(expected[name] as string[])].sort(),
			})
		}
	})

	test('agree where hidden posts are kept, which adds the hidden post for those who may see it, the held post for the CM, the pending post for the CM and its author', async () => {
		for (const [name, viewer] of Object.entries(viewers)) {
			const place = { keepHidden: true }
			const [fromSql, fromMemory] = [await bySql(viewer, place), await inMemory(viewer, place)]
			expect({ name, seen: named(fromSql) }).toEqual({ name, seen: named(fromMemory) })
			const more = ['author', 'follower', 'followed', 'stranger', 'cm'].includes(name)
			expect({ name, seen: named(fromSql) }).toEqual({
				name,
				seen: [
					...(expected[name] as string[]),
					...(more ? ['hidden'] : []),
					...(name === 'cm' ? ['held', 'pending'] : []),
					...(name === 'author' ? ['pending'] : []),
				].sort(),
			})
		}
	})

	test('openTo and reachesFollowers agree with their SQL forms', async () => {
		for (const viewer of Object.values(viewers)) {
			const rows = await sql<{ id: string }[]>`
				select p.id from posts p where p.id = any(${posts.map((p) => p.id)}::text[])
				and ${openToSql(sql, 'p', viewer)}`
			const open = posts.filter((p) => openTo(p, viewer)).map((p) => p.id)
			expect(rows.map((r) => r.id).sort()).toEqual(open.sort())
		}
		const author = viewers.author as PostViewer
		expect(named(new Set(posts.filter((p) => openTo(p, author)).map((p) => p.id)))).toEqual([
			'connections',
			'followersPublic',
			'hidden',
			'hiddenByStranger',
			'private',
			'public',
			'reportedByFollower',
		])
		const rows = await sql<{ id: string }[]>`
			select p.id from posts p where p.id = any(${posts.map((p) => p.id)}::text[])
			and ${reachesFollowersSql(sql, 'p')}`
		const reach = posts.filter(reachesFollowers).map((p) => p.id)
		expect(rows.map((r) => r.id).sort()).toEqual(reach.sort())
		expect(named(new Set(reach))).toEqual([
			'connections',
			'followersConnections',
			'followersPublic',
			'held',
			'hidden',
			'hiddenByStranger',
			'pending',
			'public',
			'reportedByFollower',
		])
	})

	test('the HTTP post page answers as the rule does (a sample of pairs)', async () => {
		const page = (viewer: string, post: string) =>
			api('GET', `/feed/post/${postIds[post]}`, { token: (people[viewer] as TestUser).token })
		expect((await page('follower', 'connections')).status).toBe(200)
		expect((await page('stranger', 'connections')).status).toBe(404)
		expect((await page('cm', 'private')).status).toBe(200)
		expect((await page('follower', 'private')).status).toBe(404)
		expect((await page('author', 'deleted')).status).toBe(404)
		expect((await page('stranger', 'public')).status).toBe(200)
		expect((await page('elsewhere', 'public')).status).toBe(404)
		expect((await page('stranger', 'hiddenByStranger')).status).toBe(404)
		expect((await page('follower', 'hiddenByStranger')).status).toBe(200)
		expect((await page('follower', 'reportedByFollower')).status).toBe(404)
		expect((await page('stranger', 'reportedByFollower')).status).toBe(200)
		expect((await page('author', 'held')).status).toBe(404)
		expect((await page('cm', 'held')).status).toBe(200)
		expect((await page('author', 'pending')).status).toBe(200)
		expect((await page('cm', 'pending')).status).toBe(200)
		expect((await page('follower', 'pending')).status).toBe(404)
	})
})
