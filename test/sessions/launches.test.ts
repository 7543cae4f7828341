// POST /sdk/initiate when many apps launch at once: returning users' lookups and
// refresh tokens share one statement (modules/sessions/initiate.ts), so each launch
// must still get its own user and a refresh token of its own that works; first launches
// of one customer id made together create one user and one profile.created event.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
const claims = (token: string) =>
	JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString())

beforeAll(async () => {
	community = await newCommunity('launches')
})

describe('concurrent launches', () => {
	test('each launch gets its own user and its own working refresh token', async () => {
		const existing: TestUser[] = []
		for (let i = 0; i < 6; i++) existing.push(await newUser(community))
		const ids = [
			...existing.map((u) => u.uniqueId),
			...existing.map((u) => u.uniqueId),
			'launch-new-a',
			'launch-new-a',
			'launch-new-b',
		]
		const replies = await Promise.all(
			ids.map((id) =>
				api('POST', '/sdk/initiate', {
					apiKey: community.apiKey,
					body: { user_unique_id: id },
				}),
			),
		)
		expect(replies.map((r) => r.status)).toEqual(ids.map(() => 200))
		const uuidOf = new Map(existing.map((u) => [u.uniqueId, u.uuid]))
		replies.forEach((reply, i) => {
			const { user, access_token } = reply.body.data
			expect(user.user_unique_id).toBe(ids[i])
			if (uuidOf.has(ids[i] as string)) expect(user.uuid).toBe(uuidOf.get(ids[i] as string))
			expect(claims(access_token).sub).toBe(user.uuid)
		})
		// One user per new customer id, and one profile.created event each.
		const newA = replies.filter((r) => r.body.data.user.user_unique_id === 'launch-new-a')
		expect(newA[0]?.body.data.user.uuid).toBe(newA[1]?.body.data.user.uuid)
		const created = await sql`
			select data->'user'->>'uuid' as uuid, (data->'user'->>'id')::float8 as id,
				(select id::float8 from users u
					where u.community_id = events.community_id and u.uuid::text = data->'user'->>'uuid') as user_id
			from events
			where community_id = ${community.communityId} and event = 'profile.created'`
		const newUuids = new Set(
			replies
				.filter((r) => r.body.data.user.user_unique_id.startsWith('launch-new'))
				.map((r) => r.body.data.user.uuid),
		)
		expect(created.filter((e) => newUuids.has(e.uuid))).toHaveLength(2)
		// Each event names its user's id (the statement that inserted the user filled it in).
		for (const e of created) expect(e.id).toBe(e.user_id)

		// Every refresh token is distinct and rotates to a token of its own user.
		const tokens = replies.map((r) => r.body.data.refresh_token as string)
		expect(new Set(tokens).size).toBe(tokens.length)
		for (const [i, reply] of replies.entries()) {
			const rotated = await api('POST', '/user/refresh', { token: tokens[i] })
			expect(rotated.status).toBe(200)
			expect(claims(rotated.body.data.access_token).sub).toBe(reply.body.data.user.uuid)
			expect(claims(rotated.body.data.access_token).fid).toBe(
				claims(reply.body.data.access_token).fid,
			)
		}
	})

	test('a first launch whose customer id is taken meanwhile is a returning launch', async () => {
		// A user of the id inserted and not yet committed: the launch's lookup misses it and
		// its insert waits on it, then finds the id taken once it commits.
		const other = await sql.reserve()
		const uuid = crypto.randomUUID()
		try {
			await other`begin`
			await other`
				insert into users (uuid, community_id, user_unique_id, name)
				values (${uuid}, ${community.communityId}, 'taken-meanwhile', 'Winner')`
			const launching = api('POST', '/sdk/initiate', {
				apiKey: community.apiKey,
				body: { user_unique_id: 'taken-meanwhile', user_name: 'Late' },
			})
			await Bun.sleep(300)
			await other`commit`
			const reply = await launching
			expect(reply.status).toBe(200)
			expect(reply.body.data.user).toMatchObject({ uuid, name: 'Winner' })
			const rotated = await api('POST', '/user/refresh', { token: reply.body.data.refresh_token })
			expect(claims(rotated.body.data.access_token).sub).toBe(uuid)
		} finally {
			other.release()
		}
	})

	test('first launches made together keep the name, image and guest flag of each', async () => {
		const bodies = [
			{ user_unique_id: 'first-guest', user_name: 'Guest', is_guest: true },
			{ user_unique_id: 'first-named', user_name: 'Named', image_url: 'https://img/n.png' },
			{ user_unique_id: 'first-bare' },
		]
		const replies = await Promise.all(
			bodies.map((body) => api('POST', '/sdk/initiate', { apiKey: community.apiKey, body })),
		)
		expect(replies.map((r) => r.body.data.user)).toMatchObject([
			{ user_unique_id: 'first-guest', name: 'Guest', is_guest: true, image_url: '' },
			{
				user_unique_id: 'first-named',
				name: 'Named',
				is_guest: false,
				image_url: 'https://img/n.png',
			},
			{ user_unique_id: 'first-bare', name: 'first-bare', is_guest: false },
		])
		const stored = await sql`
			select user_unique_id, name, image_url, is_guest, role from users
			where community_id = ${community.communityId} and user_unique_id like 'first-%'
			order by user_unique_id`
		expect([...stored]).toEqual([
			{
				user_unique_id: 'first-bare',
				name: 'first-bare',
				image_url: '',
				is_guest: false,
				role: 'member',
			},
			{
				user_unique_id: 'first-guest',
				name: 'Guest',
				image_url: '',
				is_guest: true,
				role: 'member',
			},
			{
				user_unique_id: 'first-named',
				name: 'Named',
				image_url: 'https://img/n.png',
				is_guest: false,
				role: 'member',
			},
		])
	})
})
