// Issue 15, finding 5: revoking a login (logout, refresh-token reuse) stops its access
// tokens at once, not when they expire; and no access token lives past 24 hours.
import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { jwtPlugin } from '../../src/lib/tokens'
import { restoreRevocations } from '../../src/modules/auth/revocation'
import { newCommunity, type TestCommunity } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity

beforeAll(async () => {
	community = await newCommunity('revocation')
})

let counter = 0
/** One login of a user: `uniqueId` picks the user, each call is a new family. */
async function login(uniqueId = `rev-${Date.now()}-${counter++}`, extra = {}) {
	const reply = await api('POST', '/sdk/initiate', {
		apiKey: community.apiKey,
		body: { user_unique_id: uniqueId, ...extra },
	})
	expect(reply.status).toBe(200)
	const { access_token, refresh_token, user } = reply.body.data
	return { uniqueId, access: access_token as string, refresh: refresh_token as string, user }
}

/** Logs the login out with its own refresh token (that login only). */
const logout = (session: { access: string; refresh: string }) =>
	api('POST', '/user/logout', {
		token: session.access,
		body: { refresh_token: session.refresh },
	})

const status = async (token: string) => (await api('GET', '/feed/universal', { token })).status
const claimsOf = (token: string) =>
	JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())

describe('revocation reaches access tokens', () => {
	test('logout with its refresh token: that login stops at once, another login of the user goes on', async () => {
		const first = await login()
		const second = await login(first.uniqueId)
		expect(await status(first.access)).toBe(200)
		expect((await logout(first)).status).toBe(200)
		expect(await status(first.access)).toBe(401)
		expect((await api('GET', '/feed/universal', { token: first.access })).body.error_message).toBe(
			'Access token revoked',
		)
		expect(await status(second.access)).toBe(200)
	})

	test('logout without a refresh token ends every login of the user', async () => {
		const first = await login()
		const second = await login(first.uniqueId)
		const other = await login()
		expect((await api('POST', '/user/logout', { token: first.access })).status).toBe(200)
		expect(await status(first.access)).toBe(401)
		expect(await status(second.access)).toBe(401)
		expect(await status(other.access)).toBe(200)
		// A new login after the logout works.
		expect(await status((await login(first.uniqueId)).access)).toBe(200)
	})

	test('reuse of a rotated refresh token revokes the family and its access tokens', async () => {
		const session = await login()
		const rotated = await api('POST', '/user/refresh', {
			headers: { authorization: session.refresh },
		})
		expect(rotated.status).toBe(200)
		// Positive control: an ordinary rotation leaves the family's access tokens working.
		expect(await status(session.access)).toBe(200)
		expect(await status(rotated.body.data.access_token)).toBe(200)
		const reused = await api('POST', '/user/refresh', {
			headers: { authorization: session.refresh },
		})
		expect(reused.status).toBe(401)
		expect(await status(session.access)).toBe(401)
		expect(await status(rotated.body.data.access_token)).toBe(401)
	})

	test('marks lost with Redis: the next request reads Postgres, is refused, and writes them back', async () => {
		const session = await login()
		await logout(session)
		const hash = keys.revocations(session.user.id)
		const mark = `f:${claimsOf(session.access).fid}`
		expect(await redis.hget(hash, mark)).not.toBeNull()
		await redis.del(hash) // as a flush or an eviction leaves it
		expect(await status(session.access)).toBe(401)
		expect(await redis.hget(hash, mark)).not.toBeNull()
		expect(await redis.hget(hash, 'role')).not.toBeNull()
		expect(await status(session.access)).toBe(401)
	})

	test('after the hash is lost, another login of the user refills it first: the revoked one stays out', async () => {
		const revoked = await login()
		const live = await login(revoked.uniqueId)
		await logout(revoked)
		await redis.del(keys.revocations(revoked.user.id))
		// The live login finds no role copy, reads Postgres and writes the hash back:
		// the revoked login's mark with it, before the copy that spares later reads.
		expect(await status(live.access)).toBe(200)
		expect(await status(revoked.access)).toBe(401)
		expect(await status(live.access)).toBe(200)
	})

	test('the rebuild script restores the marks of every user from Postgres', async () => {
		const session = await login()
		await logout(session)
		const hash = keys.revocations(session.user.id)
		await redis.del(hash)
		expect(await restoreRevocations()).toBeGreaterThan(0)
		expect(await redis.hget(hash, `f:${claimsOf(session.access).fid}`)).toBe('1')
	})
})

describe('access-token lifetime', () => {
	test('token_expiry_beta of 30 days gives a token of 24 hours; 10 minutes gives 10', async () => {
		const long = claimsOf((await login(undefined, { token_expiry_beta: 43_200 })).access)
		expect(long.exp - long.iat).toBe(24 * 3600)
		const short = claimsOf((await login(undefined, { token_expiry_beta: 10 })).access)
		expect(short.exp - short.iat).toBe(600)
	})

	test('token_expiry_beta out of range or not whole is a 400 that says the range', async () => {
		for (const value of [43_201, 0, 1.5, 'ten']) {
			const reply = await api('POST', '/sdk/initiate', {
				apiKey: community.apiKey,
				body: { user_unique_id: `range-${counter++}`, token_expiry_beta: value },
			})
			expect(reply.status, String(value)).toBe(400)
			expect(reply.body.error_message, String(value)).toContain(
				'token_expiry_beta must be a whole number of minutes from 1 to 43200',
			)
		}
	})

	test('a token signed for longer than a day, or without expiry, is refused', async () => {
		const { user } = await login()
		const claims = { sub: user.uuid, uid: user.id, cid: community.communityId, role: 'member' }
		const sign = (exp?: number) =>
			jwtPlugin.decorator.jwt.sign(exp === undefined ? claims : { ...claims, exp })
		const now = Math.floor(Date.now() / 1000)
		expect(await status(await sign(now + 30 * 86_400))).toBe(401)
		expect(await status(await sign())).toBe(401)
		expect(await status(await sign(now + 23 * 3600))).toBe(200)
	})
})
