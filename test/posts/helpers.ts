// Shared setup of the engagement tests: posts through the API, events and blocks read or
// written directly (the blocking routes are another module's).
import { sql } from '../../src/lib/db'
import type { TestCommunity, TestUser } from '../support/community'
import { api } from '../support/http'

export async function newPost(
	author: TestUser,
	body: Record<string, unknown> = {},
): Promise<string> {
	const reply = await api('POST', '/feed/post', {
		token: author.token,
		body: { text: 'hello', ...body },
	})
	if (reply.status !== 200) throw new Error(`post failed: ${JSON.stringify(reply.body)}`)
	return reply.body.data.post._id
}

export async function eventsFor(community: TestCommunity, event: string) {
	const rows = await sql`
		select data from events where community_id = ${community.communityId} and event = ${event} order by created_at, id`
	return rows.map((r) => r.data)
}

export async function block(community: TestCommunity, blocker: TestUser, blocked: TestUser) {
	await sql`insert into blocks (community_id, blocker_id, blocked_id) values (${community.communityId}, ${blocker.id}, ${blocked.id})`
}

export const tag = (user: TestUser) => `<<${user.name}|route://member/${user.uuid}>>`
