// The social graph through the API: enabling the user_connection setting, connecting
// users; and a block written directly for tests of other modules.
import { expect } from 'bun:test'
import { sql } from '../support/db'
import { newUser, type TestCommunity, type TestUser } from './community'
import { api } from './http'

export async function enableConnections(community: TestCommunity, enabled = true): Promise<void> {
	const cm = await newUser(community, { role: 'cm' })
	const reply = await api('PUT', '/community/settings', {
		token: cm.token,
		body: { community_settings: [{ setting_type: 'user_connection', enabled }] },
	})
	expect(reply.status).toBe(200)
}

export const connectionPath = (member: TestUser) => `/community/member/${member.uuid}/connection`

export async function connect(
	a: TestUser,
	b: TestUser,
	type: 'two_way' | 'one_way' = 'two_way',
): Promise<void> {
	const reply = await api('POST', connectionPath(b), {
		token: a.token,
		body: { connection_type: type, connection_request_auto_accepted: true },
	})
	expect(reply.status).toBe(200)
}

/** `blocker` blocks `blocked`, written directly (for tests whose subject is not blocking). */
export async function block(community: TestCommunity, blocker: TestUser, blocked: TestUser) {
	await sql`insert into blocks (community_id, blocker_id, blocked_id) values (${community.communityId}, ${blocker.id}, ${blocked.id})`
}
