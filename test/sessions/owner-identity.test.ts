// Issue 15, finding 1: the API key (held by every client app) must never reach the
// dashboard owner. The owner has no user_unique_id; initiate only finds members/CMs.
import { beforeAll, describe, expect, test } from 'bun:test'
import { config } from '../../src/config'
import { newCommunity, type TestCommunity } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let c: TestCommunity
let ownerUuid: string
const code = '246810'

beforeAll(async () => {
	c = await newCommunity('owner-identity')
	config.otpTestNumbers.set(`${c.ownerCountryCode}-${c.ownerMobile}`, code)
	const [owner] =
		await sql`select uuid from users where community_id = ${c.communityId} and role = 'owner'`
	ownerUuid = owner.uuid
})

const roleOf = async (token: string) =>
	(await api('GET', '/community/member/role', { token })).body.data

async function initiate(body: Record<string, unknown>, apiKey?: string) {
	const reply = await api('POST', '/sdk/initiate', { apiKey, body })
	expect(reply.status).toBe(200)
	return reply.body.data as { access_token: string; user: { uuid: string } }
}

describe('POST /sdk/initiate never returns the owner', () => {
	// The forms an attacker would try: the old reserved id, the owner's number, its uuid.
	const ownerNames = () => [
		`owner:${c.ownerCountryCode}-${c.ownerMobile}`,
		`${c.ownerCountryCode}-${c.ownerMobile}`,
		c.ownerMobile,
		ownerUuid,
	]

	test('positive control: the owner signs in by OTP and is the owner', async () => {
		const query = `country_code=${c.ownerCountryCode}&mobile_no=${c.ownerMobile}`
		expect((await api('GET', `/otp/generate?${query}`)).status).toBe(200)
		const verified = await api('GET', `/otp/verify?${query}&otp=${code}`)
		expect(verified.status).toBe(200)
		expect(await roleOf(verified.body.data.auth_token)).toMatchObject({
			uuid: ownerUuid,
			role: 'owner',
		})
	})

	test('positive control: the same user_unique_id twice is the same user', async () => {
		const first = await initiate({ user_unique_id: 'repeat-me' }, c.apiKey)
		const second = await initiate({ uuid: 'repeat-me' }, c.apiKey)
		expect(second.user.uuid).toBe(first.user.uuid)
	})

	for (const form of ['user_unique_id', 'uuid', 'apikey in body'] as const) {
		test(`through ${form}: every owner-like id is an ordinary member`, async () => {
			for (const id of ownerNames()) {
				const body: Record<string, unknown> =
					form === 'uuid' ? { uuid: id } : { user_unique_id: id }
				if (form === 'apikey in body') body.apikey = c.apiKey
				const session = await initiate(body, form === 'apikey in body' ? undefined : c.apiKey)
				expect(session.user.uuid).not.toBe(ownerUuid)
				expect(await roleOf(session.access_token)).toMatchObject({ role: 'member' })
				const project = await api('GET', '/sdk/project', {
					token: session.access_token,
					apiKey: c.apiKey,
					headers: { 'x-platform-type': 'dashboard' },
				})
				expect(project.status).toBe(403)
			}
		})
	}

	test('the database refuses an owner with a customer id, and a member without one', async () => {
		const insert = (role: string, uniqueId: string | null) =>
			sql`insert into users (uuid, community_id, user_unique_id, name, role)
				values (gen_random_uuid(), ${c.communityId}, ${uniqueId}, 'x', ${role})`
		await expect(insert('owner', 'owner:1-5550000')).rejects.toThrow(/users_owner_outside/)
		await expect(insert('member', null)).rejects.toThrow(/users_owner_outside/)
		// Positive control: the same insert as a member with an id succeeds.
		await insert('member', `plain-${Date.now()}`)
	})
})
