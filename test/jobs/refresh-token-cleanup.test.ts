// The hourly cleanup deletes refresh tokens expired for over a day (longer than any
// access token lives) and nothing else: a token expired an hour ago stays (its access
// tokens may still be alive, and its revocation must stay restorable), live logins go on.
import { expect, test } from 'bun:test'
import { refreshTokenCleanupJob } from '../../src/jobs/refresh-token-cleanup'
import { sha256 } from '../../src/lib/crypto'
import { newCommunity } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

test('refresh-token cleanup removes only tokens expired for over a day', async () => {
	const community = await newCommunity('refresh-cleanup')
	const login = async (n: number) => {
		const reply = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: `cleanup-${Date.now()}-${n}` },
		})
		expect(reply.status).toBe(200)
		return reply.body.data.refresh_token as string
	}
	const [old, recent, live] = await Promise.all([login(1), login(2), login(3)])
	const expire = (token: string, hoursAgo: number) =>
		sql`update refresh_tokens set expires_at = now() - make_interval(hours => ${hoursAgo})
			where token_hash = ${sha256(token)}`
	await expire(old, 25)
	await expire(recent, 1)
	await refreshTokenCleanupJob.run()
	const left = async (token: string) =>
		(await sql`select 1 from refresh_tokens where token_hash = ${sha256(token)}`).length
	expect(await left(old)).toBe(0)
	expect(await left(recent)).toBe(1)
	expect(await left(live)).toBe(1)
	const refresh = (token: string) =>
		api('POST', '/user/refresh', { headers: { authorization: token } })
	expect((await refresh(recent)).body.error_message).toBe('Refresh token expired')
	expect((await refresh(live)).status).toBe(200)
})
