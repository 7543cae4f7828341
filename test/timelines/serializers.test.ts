// The feed engine serializes a post two ways: as objects (hydrate.ts present, used by
// single posts and lists) and as bytes spliced from the cache (render.ts, used by every
// feed page). They must give the same JSON, byte for byte, for the same posts — also
// after the seen script has rewritten counters inside the cached bytes.
import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import type { VisibilityRules } from '../../src/timelines/hydrate'
import { hydratePosts } from '../../src/timelines/hydrate'
import type { Viewer } from '../../src/timelines/present'
import { renderPostsJson } from '../../src/timelines/render'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser
let other: TestUser
let reader: TestUser
let cm: TestUser
const ids: string[] = []
const rules: VisibilityRules = {
	visibilities: ['public', 'connections', 'private'],
	keepHidden: true,
}

async function post(user: TestUser, body: Record<string, unknown>): Promise<string> {
	const reply = await api('POST', '/feed/post', { token: user.token, body })
	if (reply.status !== 200) throw new Error(JSON.stringify(reply.body))
	return reply.body.data.post._id
}

const viewerOf = (user: TestUser, isCm = false): Viewer => ({
	userId: user.id,
	communityId: community.communityId,
	isCm,
})

/** Both serializations of the same ids for one viewer, as strings. */
async function both(viewer: Viewer) {
	const objects = JSON.stringify(await hydratePosts(viewer, ids, rules))
	const pieces = await renderPostsJson(viewer, ids, new Set(), rules)
	const bytes = `${Buffer.concat(pieces).toString()}}`
	return { objects, bytes }
}

beforeAll(async () => {
	community = await newCommunity('serializers')
	author = await newUser(community, { name: 'Zoë "quoted" \\ author' })
	other = await newUser(community, { name: '名前 🚀' })
	reader = await newUser(community)
	cm = await newUser(community, { role: 'cm' })
	const look = { impressions_count: 99, reach_count: 99, note: ',"reach_count":1' }
	ids.push(
		await post(author, {
			heading: 'Heading with "quotes" and \\ backslash',
			text: 'Unicode ✓ 🚀 \u2028 line separator',
			attachments: [{ attachment_type: 1, attachment_meta: look }],
		}),
		await post(other, { text: 'second author', visibility: 'connections' }),
		await post(author, { text: 'private', visibility: 'private' }),
	)
	await api('PUT', `/feed/post/${ids[0]}/like`, { token: reader.token })
	await api('PUT', `/feed/post/${ids[1]}/save`, { token: reader.token })
	await api('PUT', `/feed/post/${ids[0]}/pin`, { token: author.token })
})

describe('object and byte serializers of a feed post', () => {
	test('give the same JSON for a member, the author and a CM', async () => {
		for (const viewer of [viewerOf(reader), viewerOf(author), viewerOf(cm, true)]) {
			const { objects, bytes } = await both(viewer)
			// Positive control: the page really holds posts and users to compare.
			expect(JSON.parse(objects).posts.length).toBeGreaterThan(0)
			expect(Object.keys(JSON.parse(objects).users).length).toBeGreaterThan(0)
			// The users map's key order follows cache reads, which may differ between the two.
			expect(JSON.parse(bytes)).toEqual(JSON.parse(objects))
			expect(JSON.stringify(JSON.parse(bytes).posts)).toBe(
				JSON.stringify(JSON.parse(objects).posts),
			)
		}
	})

	test('seen counters rewritten in the cached bytes equal a fresh load from Postgres', async () => {
		await both(viewerOf(reader)) // fills the cache
		for (const user of [reader, other, cm])
			await api('POST', '/feed/post/seen', { token: user.token, body: { post_ids: [ids[0]] } })
		const key = keys.postCache(community.communityId, ids[0] as string)
		expect(await redis.exists(key)).toBe(1) // updated in place, not evicted
		const inPlace = await both(viewerOf(cm, true))
		expect(inPlace.bytes).toBe(inPlace.objects)
		const first = JSON.parse(inPlace.objects).posts[0]
		expect(first).toMatchObject({ impressions_count: 3, reach_count: 3 })
		expect(first.attachments[0].attachment_meta.reach_count).toBe(99)

		await redis.del(key)
		const fresh = await both(viewerOf(cm, true))
		expect(fresh.objects).toBe(inPlace.objects)
	})
})
