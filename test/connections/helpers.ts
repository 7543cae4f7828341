// Helpers of the connection tests: enabling the feature and connecting users.
import { expect } from 'bun:test'
import type { TestCommunity, TestUser } from '../support/community'
import { newUser } from '../support/community'
import { api } from '../support/http'

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
