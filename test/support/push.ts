// Setup shared by the push tests: a community whose push credentials (stored through
// PUT /sdk/project, as the dashboard does) point at the local fake FCM, and devices.

import { sql } from '../support/db'
import { ownerToken, type TestCommunity, type TestUser } from './community'
import type { FakeFcm } from './fake-fcm'
import { api } from './http'

export async function storeCredentials(community: TestCommunity, fake: FakeFcm): Promise<void> {
	const reply = await api('PUT', '/sdk/project', {
		token: await ownerToken(community),
		apiKey: community.apiKey,
		headers: { 'x-platform-type': 'dashboard' },
		body: { push_service_account_file: fake.serviceAccount(`proj-${community.communityId}`) },
	})
	if (reply.status !== 200) throw new Error(`credentials: ${JSON.stringify(reply.body)}`)
}

export async function registerDevice(
	user: TestUser,
	deviceId: string,
	token: string,
	platform = 'an',
): Promise<void> {
	const reply = await api('POST', '/user/device/push', {
		token: user.token,
		headers: { 'x-device-id': deviceId, 'x-platform-code': platform },
		body: { token },
	})
	if (reply.status !== 200) throw new Error(`device: ${JSON.stringify(reply.body)}`)
}

/** Delivery rows of a community by status (what the engine recorded). */
export async function pushStatuses(community: TestCommunity): Promise<Record<string, number>> {
	const rows = await sql`
		select status, count(*)::int as n from push_deliveries where community_id = ${community.communityId} group by status`
	return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}
