import { beforeAll, describe, expect, test } from 'bun:test'
import { jwtPlugin, signAccessToken } from '../../src/lib/tokens'
import { newCommunity, newUser, type TestCommunity } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('sessions')
})

describe('POST /sdk/initiate', () => {
	test('creates the user once and returns tokens, user and community', async () => {
		const body = { user_unique_id: 'cust-1', user_name: 'Asha' }
		const first = await api('POST', '/sdk/initiate', { apiKey: community.apiKey, body })
		expect(first.status).toBe(200)
		expect(first.body.success).toBe(true)
		expect(first.body.data.access_token).toBeString()
		expect(first.body.data.refresh_token).toBeString()
		expect(first.body.data.user).toMatchObject({
			name: 'Asha',
			user_unique_id: 'cust-1',
			is_guest: false,
		})
		expect(first.body.data.community.id).toBe(community.communityId)
		// both SDKs' declared session answers read these two
		expect(first.body.data).toMatchObject({ app_access: true, has_answers: true })

		const second = await api('POST', '/sdk/initiate', { apiKey: community.apiKey, body })
		expect(second.body.data.user.uuid).toBe(first.body.data.user.uuid)

		const events =
			await sql`select data from events where community_id = ${community.communityId} and event = 'profile.created'`
		const forUser = events.filter((e) => e.data.user.uuid === first.body.data.user.uuid)
		expect(forUser).toHaveLength(1)
		// The stored user as the webhook presents it, its id included.
		const [row] =
			await sql`select *, id::float8 as id from users where uuid = ${first.body.data.user.uuid}`
		expect(forUser[0].data.user).toEqual({
			id: row?.id,
			custom_title: '',
			image_url: row?.image_url,
			is_guest: false,
			is_deleted: false,
			name: row?.name,
			sdk_client_info: { community: community.communityId, uuid: 'cust-1' },
			uuid: row?.uuid,
		})
	})

	test('a new name or image shows in feeds at once (the cached feed user is dropped)', async () => {
		const first = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: 'renamed', user_name: 'Old' },
		})
		const token = first.body.data.access_token
		const uuid = first.body.data.user.uuid
		const post = await api('POST', '/feed/post', { token, body: { text: 'hi' } })
		expect(post.status).toBe(200)
		const usersOf = async () =>
			(await api('GET', '/feed/universal', { token })).body.data.users[uuid]
		expect(await usersOf()).toMatchObject({ name: 'Old' })
		await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: 'renamed', user_name: 'New' },
		})
		expect(await usersOf()).toMatchObject({ name: 'New' })
		await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: 'renamed', image_url: 'https://img/x.png' },
		})
		expect(await usersOf()).toMatchObject({ name: 'New', image_url: 'https://img/x.png' })
	})

	test('accepts the customer id as uuid and the key as an apikey body field', async () => {
		const reply = await api('POST', '/sdk/initiate', {
			body: { uuid: 'cust-2', user_name: 'B', apikey: community.apiKey },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.user.user_unique_id).toBe('cust-2')
	})

	test('missing and unknown API keys are 401', async () => {
		const missing = await api('POST', '/sdk/initiate', { body: { user_unique_id: 'x' } })
		expect(missing.status).toBe(401)
		expect(missing.body).toMatchObject({ success: false, error_message: 'Missing x-api-key' })
		const unknown = await api('POST', '/sdk/initiate', {
			apiKey: 'plz_nope',
			body: { user_unique_id: 'x' },
		})
		expect(unknown.status).toBe(401)
		expect(unknown.body.error_message).toBe('Unknown API key')
	})

	test('bad bodies are 400, never 500', async () => {
		const noId = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_name: 'x' },
		})
		expect(noId.status).toBe(400)
		expect(noId.body.success).toBe(false)
		const wrongType = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: 42 },
		})
		expect(wrongType.status).toBe(400)
		expect(wrongType.body.error_message).toContain('user_unique_id')
		const badJson = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			rawBody: '{"user_unique_id":',
		})
		expect(badJson.status).toBe(400)
		expect(badJson.body.success).toBe(false)
	})

	test('oversize bodies are 413', async () => {
		const big = 'x'.repeat(1024 * 1024 + 10)
		const reply = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			rawBody: JSON.stringify({ user_unique_id: big }),
			headers: { 'content-length': String(big.length + 22) },
		})
		expect(reply.status).toBe(413)
		expect(reply.body.success).toBe(false)
	})
})

describe('access tokens', () => {
	test('both Authorization forms work; GET /sdk/initiate describes the session', async () => {
		const user = await newUser(community, { name: 'Chen' })
		const bearer = await api('GET', '/sdk/initiate', { token: user.token })
		expect(bearer.status).toBe(200)
		expect(bearer.body.data.user.uuid).toBe(user.uuid)
		expect(bearer.body.data).toMatchObject({ app_access: true, has_answers: true })
		const bare = await api('GET', '/sdk/initiate', { headers: { authorization: user.token } })
		expect(bare.status).toBe(200)
	})

	test('tokens are HS256 JWTs as the plugin writes them; a changed payload is refused', async () => {
		const claims = { sub: 'u-1', uid: 1, cid: 2, role: 'member' as const, fid: 'f-1' }
		const ours = await signAccessToken(claims, 10)
		const theirs = await jwtPlugin.decorator.jwt.sign({ ...claims, exp: 1 })
		const part = (token: string, i: number) =>
			JSON.parse(Buffer.from(token.split('.')[i] as string, 'base64url').toString())
		expect(part(ours, 0)).toEqual(part(theirs, 0))
		const verified = await jwtPlugin.decorator.jwt.verify(ours)
		expect(verified).toMatchObject(claims)
		const { iat, exp } = verified as { iat: number; exp: number }
		expect(Math.abs(iat - Date.now() / 1000)).toBeLessThan(2)
		expect(exp - iat).toBe(600)
		const [h, , sig] = ours.split('.')
		const forged = Buffer.from(JSON.stringify({ ...part(ours, 1), role: 'owner' })).toString(
			'base64url',
		)
		expect(await jwtPlugin.decorator.jwt.verify(`${h}.${forged}.${sig}`)).toBe(false)
	})

	test('missing, invalid and expired tokens are 401', async () => {
		const user = await newUser(community)
		expect((await api('GET', '/sdk/initiate')).status).toBe(401)
		expect((await api('GET', '/sdk/initiate', { token: 'garbage' })).status).toBe(401)
		const expired = await signAccessToken(
			{ sub: user.uuid, uid: user.id, cid: community.communityId, role: 'member' },
			-1,
		)
		const reply = await api('GET', '/sdk/initiate', { token: expired })
		expect(reply.status).toBe(401)
		expect(reply.body).toMatchObject({
			success: false,
			error_message: 'Invalid or expired access token',
		})
	})

	test('a token verified (and cached) before its exp is 401 once exp has passed', async () => {
		const user = await newUser(community)
		const minutes = 2 / 60
		const token = await signAccessToken(
			{ sub: user.uuid, uid: user.id, cid: community.communityId, role: 'member' },
			minutes,
		)
		const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number
		expect((await api('GET', '/sdk/initiate', { token })).status).toBe(200)
		expect((await api('GET', '/sdk/initiate', { token })).status).toBe(200)
		await Bun.sleep(Math.max(0, exp * 1000 - Date.now()) + 50)
		const reply = await api('GET', '/sdk/initiate', { token })
		expect(reply.status).toBe(401)
		expect(reply.body.error_message).toBe('Invalid or expired access token')
	})

	test('client too old is 426', async () => {
		const user = await newUser(community)
		const old = await api('GET', '/sdk/initiate', {
			token: user.token,
			headers: { 'x-platform-code': 'an', 'x-version-code': '100' },
		})
		expect(old.status).toBe(426)
		expect(old.body.error_message).toBe('Please update the app')
		const current = await api('GET', '/sdk/initiate', {
			token: user.token,
			headers: { 'x-platform-code': 'an', 'x-version-code': '120' },
		})
		expect(current.status).toBe(200)
	})
})

describe('POST /user/refresh and /user/logout', () => {
	test('rotates the pair; reusing a rotated token revokes the family', async () => {
		const user = await newUser(community)
		const first = await api('POST', '/user/refresh', { token: user.refreshToken })
		expect(first.status).toBe(200)
		const next = first.body.data.refresh_token
		expect(next).not.toBe(user.refreshToken)
		expect(
			(await api('GET', '/sdk/initiate', { token: first.body.data.access_token })).status,
		).toBe(200)

		const reuse = await api('POST', '/user/refresh', { token: user.refreshToken })
		expect(reuse.status).toBe(401)
		expect(reuse.body.error_message).toContain('reused')
		// The whole family is gone: the newest token no longer works either.
		expect((await api('POST', '/user/refresh', { token: next })).status).toBe(401)
	})

	test('logout revokes the refresh token', async () => {
		const user = await newUser(community)
		const out = await api('POST', '/user/logout', {
			token: user.token,
			body: { refresh_token: user.refreshToken },
		})
		expect(out.status).toBe(200)
		expect((await api('POST', '/user/refresh', { token: user.refreshToken })).status).toBe(401)
	})

	test('unknown refresh token is 401', async () => {
		expect((await api('POST', '/user/refresh', { token: 'rt_unknown' })).status).toBe(401)
		expect((await api('POST', '/user/refresh')).status).toBe(401)
	})
})
