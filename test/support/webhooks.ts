// Webhook test setup through the API: a community with a CM, a registered webhook, and
// an event (profile.created) triggered the way a customer's backend would.
import { newCommunity, newUser, type TestCommunity, type TestUser } from './community'
import { api } from './http'

export interface Setup {
	community: TestCommunity
	cm: TestUser
}

export async function setup(name: string): Promise<Setup> {
	const community = await newCommunity(name)
	const cm = await newUser(community, { role: 'cm' })
	return { community, cm }
}

export async function register(s: Setup, url: string, webhookType = 'profile.created') {
	const reply = await api('POST', '/webhook', {
		token: s.cm.token,
		body: { webhook_type: webhookType, url, is_active: true },
	})
	if (reply.status !== 200)
		throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`)
	return reply.body.data.webhook as { id: string; secret: string; url: string; is_active: boolean }
}

/** Triggers profile.created through the API; returns the new user's uuid. */
export async function newProfile(s: Setup, uniqueId = `p-${crypto.randomUUID()}`): Promise<string> {
	const reply = await api('POST', '/sdk/initiate', {
		apiKey: s.community.apiKey,
		body: { user_unique_id: uniqueId, user_name: uniqueId },
	})
	if (reply.status !== 200) throw new Error(`initiate failed: ${JSON.stringify(reply.body)}`)
	return reply.body.data.user.uuid
}
