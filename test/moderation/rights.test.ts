import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { refillRole } from '../../src/modules/auth/roles'
import { forgetTokenStates } from '../../src/modules/auth/token-states'
import { newCommunity, newUser, ownerSession, type TestCommunity } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let other: TestCommunity
let ownerToken: string
let ownerUuid: string

const role = async (token: string) =>
	(await api('GET', '/community/member/role', { token })).body.data

beforeAll(async () => {
	community = await newCommunity('members')
	other = await newCommunity('members-other')
	;({ token: ownerToken, uuid: ownerUuid } = await ownerSession(community))
})

describe('GET /community/member/role', () => {
	test('answers member, cm or owner for the caller', async () => {
		const member = await newUser(community)
		const cm = await newUser(community, { role: 'cm' })
		expect(await role(member.token)).toEqual({
			uuid: member.uuid,
			role: 'member',
			is_cm: false,
			is_owner: false,
		})
		expect(await role(cm.token)).toMatchObject({ role: 'cm', is_cm: true, is_owner: false })
		expect(await role(ownerToken)).toMatchObject({ uuid: ownerUuid, role: 'owner', is_owner: true })
	})

	test('needs a token', async () => {
		expect((await api('GET', '/community/member/role')).status).toBe(401)
	})
})

describe('PATCH /moderation/rights', () => {
	test('the owner grants CM; the grant applies to the member’s existing token; removing it too', async () => {
		const member = await newUser(community)
		const target = await newUser(community)
		const grant = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: member.uuid, is_cm: true },
		})
		expect(grant.status).toBe(200)
		expect(grant.body.data).toMatchObject({ role: 'cm', is_cm: true, user: { uuid: member.uuid } })
		expect(await role(member.token)).toMatchObject({ role: 'cm' })

		// The new CM may now change rights of others.
		const byCm = await api('PATCH', '/moderation/rights', {
			token: member.token,
			body: { uuid: target.uuid, is_cm: true },
		})
		expect(byCm.status).toBe(200)
		expect(await role(target.token)).toMatchObject({ role: 'cm' })

		const remove = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: member.uuid, is_cm: false },
		})
		expect(remove.body.data).toMatchObject({ role: 'member', is_cm: false })
		expect(await role(member.token)).toMatchObject({ role: 'member' })
		// Demoted: no longer allowed to change rights.
		const denied = await api('PATCH', '/moderation/rights', {
			token: member.token,
			body: { uuid: target.uuid, is_cm: false },
		})
		expect(denied.status).toBe(403)
	})

	test('a member is refused with the spec message', async () => {
		const member = await newUser(community)
		const target = await newUser(community)
		const reply = await api('PATCH', '/moderation/rights', {
			token: member.token,
			body: { uuid: target.uuid, is_cm: true },
		})
		expect(reply.status).toBe(403)
		expect(reply.body).toEqual({
			success: false,
			error_message: 'You are not CM/Owner of this community',
		})
		expect(await role(target.token)).toMatchObject({ role: 'member' })
	})

	test('nobody can remove the owner’s rights', async () => {
		const cm = await newUser(community, { role: 'cm' })
		const byCm = await api('PATCH', '/moderation/rights', {
			token: cm.token,
			body: { uuid: ownerUuid, is_cm: false },
		})
		expect(byCm.status).toBe(403)
		const byOwner = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: ownerUuid, is_cm: false },
		})
		expect(byOwner.status).toBe(403)
		expect(byOwner.body.error_message).toBe("The community owner's rights cannot be removed")
		// Granting CM to the owner changes nothing.
		const noop = await api('PATCH', '/moderation/rights', {
			token: cm.token,
			body: { uuid: ownerUuid, is_cm: true },
		})
		expect(noop.status).toBe(200)
		expect(noop.body.data.role).toBe('owner')
		expect(await role(ownerToken)).toMatchObject({ role: 'owner' })
	})

	test('a uuid of another community, or no user at all, is 404', async () => {
		const stranger = await newUser(other)
		const reply = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: stranger.uuid, is_cm: true },
		})
		expect(reply.status).toBe(404)
		expect(reply.body.success).toBe(false)
		expect(await role(stranger.token)).toMatchObject({ role: 'member' })
		const unknown = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: '00000000-0000-4000-8000-000000000000', is_cm: true },
		})
		expect(unknown.status).toBe(404)
		const notUuid = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: 'not-a-uuid', is_cm: true },
		})
		expect(notUuid.status).toBe(404)
	})

	test('bad bodies are 400 and no token is 401', async () => {
		const member = await newUser(community)
		for (const body of [
			{},
			{ uuid: member.uuid },
			{ uuid: member.uuid, is_cm: 'yes' },
			{ uuid: 5, is_cm: true },
		]) {
			const reply = await api('PATCH', '/moderation/rights', { token: ownerToken, body })
			expect(reply.status, JSON.stringify(body)).toBe(400)
			expect(reply.body.success).toBe(false)
		}
		const malformed = await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			rawBody: '{"uuid":',
		})
		expect(malformed.status).toBe(400)
		expect(
			(await api('PATCH', '/moderation/rights', { body: { uuid: member.uuid, is_cm: true } }))
				.status,
		).toBe(401)
	})
})

describe('a role change reaches every route at once', () => {
	/** The menu of the post as the member's unchanged token sees it on both routes. */
	async function menus(token: string, postId: string) {
		const universal = await api('GET', '/feed/universal?page_size=100', { token })
		const inFeed = universal.body.data.posts.find((p: { _id: string }) => p._id === postId)
		const single = await api('GET', `/feed/post/${postId}`, { token })
		const ids = (post: { menu_items: { id: number }[] }) => post.menu_items.map((m) => m.id)
		return { feed: ids(inFeed), post: ids(single.body.data.post) }
	}

	test('menu_items of /feed/universal and GET /feed/post/:id agree after a grant and a removal', async () => {
		const author = await newUser(community)
		const member = await newUser(community)
		const created = await api('POST', '/feed/post', {
			token: author.token,
			body: { text: 'menus follow the stored role' },
		})
		const postId = created.body.data.post._id as string
		const report = [4]
		const cmMenu = [1, 2, 4] // delete, pin, report
		expect(await menus(member.token, postId)).toEqual({ feed: report, post: report })

		await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: member.uuid, is_cm: true },
		})
		expect(await menus(member.token, postId)).toEqual({ feed: cmMenu, post: cmMenu })

		await api('PATCH', '/moderation/rights', {
			token: ownerToken,
			body: { uuid: member.uuid, is_cm: false },
		})
		expect(await menus(member.token, postId)).toEqual({ feed: report, post: report })
	})
})

describe('the role copy in Redis (roles.ts)', () => {
	const copyOf = async (userId: number) => redis.hget(keys.revocations(userId), 'role')

	test('a fresh copy is what requests see; an expired one is read again from Postgres and refilled', async () => {
		const member = await newUser(community)
		expect((await role(member.token)).role).toBe('member')
		expect(await copyOf(member.id)).toMatch(/^member\|\d+$/)
		// Positive control: a fresh copy is trusted (written behind the service's back).
		// The process keeps a passing answer for a second (token-states.ts): dropped here, as
		// it expires by itself, so the next request reads the hash.
		await redis.hset(keys.revocations(member.id), 'role', `cm|${Date.now() + 60_000}`)
		forgetTokenStates(member.id)
		expect((await role(member.token)).role).toBe('cm')
		// Expired: Postgres decides, and the copy is fresh again.
		await redis.hset(keys.revocations(member.id), 'role', `cm|${Date.now() - 1}`)
		forgetTokenStates(member.id)
		expect((await role(member.token)).role).toBe('member')
		const refilled = await copyOf(member.id)
		expect(refilled).toMatch(/^member\|\d+$/)
		expect(Number(refilled?.split('|')[1])).toBeGreaterThan(Date.now())
	})

	test('a reader refills only the copy it saw: a newer copy written meanwhile stays', async () => {
		const member = await newUser(community)
		await role(member.token)
		const newer = `cm|${Date.now() + 60_000}`
		await redis.hset(keys.revocations(member.id), 'role', newer)
		// A reader that saw no copy (or an older one) read Postgres' role and must not write it over.
		await refillRole(member.id, null, 'member')
		await refillRole(member.id, 'member|1', 'member')
		expect(await copyOf(member.id)).toBe(newer)
	})

	test('the copy shares its hash with the revocation marks: a logout still revokes, the role still reads', async () => {
		const member = await newUser(community)
		expect((await role(member.token)).role).toBe('member')
		const out = await api('POST', '/user/logout', {
			token: member.token,
			body: { refresh_token: member.refreshToken },
		})
		expect(out.status).toBe(200)
		const after = await api('GET', '/community/member/role', { token: member.token })
		expect(after.status).toBe(401)
		expect(await copyOf(member.id)).toMatch(/^member\|\d+$/)
	})
})
