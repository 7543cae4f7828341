// Seeds the chat benchmark's room straight into Postgres: a community, its members,
// one chatroom where every member is seated, and a history of messages, with the
// counters (participants, messages, last conversation, per-message seq) as the API
// would have left them.
import { sql } from '../../src/lib/db'
import { createProject } from '../../src/modules/projects/service'

export interface ChatBench {
	communityId: number
	chatroomId: string
	userIds: number[]
	uuids: string[]
	/** a conversation id in the middle of the history (the scrolled page's anchor) */
	middleId: string
}

export async function seedChat(
	size: { members: number; messages: number },
	log: (msg: string) => void,
): Promise<ChatBench> {
	const started = performance.now()
	const project = await createProject({
		name: 'bench-chat',
		ownerCountryCode: '1',
		ownerMobile: `4${Date.now()}`.slice(0, 11),
	})
	const c = project.community_id
	const t0 = Date.now() - size.messages * 1000
	const users = await sql<{ id: number; uuid: string }[]>`
		insert into users (uuid, community_id, user_unique_id, name)
		select gen_random_uuid(), ${c}, 'bench-' || g, 'Member ' || g from generate_series(1, ${size.members}) g
		returning id, uuid`
	const userIds = users.map((u) => u.id)
	const [room] = await sql<{ id: string }[]>`
		insert into chatrooms (community_id, title, created_by, participants_count, created_at, updated_at)
		values (${c}, 'Bench room', ${userIds[0] as number}, ${size.members}, ${t0}, ${t0}) returning id`
	const chatroomId = (room as { id: string }).id
	await sql`
		insert into chatroom_participants (chatroom_id, user_id, community_id, join_method, noti_state, joined_at)
		select ${chatroomId}, id, ${c}, 'self_joined', 1, ${t0} from unnest(${userIds}::int[]) id`
	await sql`
		insert into conversations (chatroom_id, community_id, user_id, state, text, seq, created_at, updated_at)
		select ${chatroomId}, ${c}, (${userIds}::int[])[1 + g % ${size.members}], 0,
			'Message number ' || g || ' in the bench room, long enough to look like chat', g, ${t0}::bigint + g * 1000, ${t0}::bigint + g * 1000
		from generate_series(1, ${size.messages}) g`
	const [last] = await sql`
		select max(id)::text as newest, percentile_disc(0.5) within group (order by id)::text as middle
		from conversations where chatroom_id = ${chatroomId}`
	await sql`
		update chatrooms set messages_count = ${size.messages}, last_conversation_id = ${last?.newest},
			version = 1 where id = ${chatroomId}`
	// Every member has read everything so far (as after a first visit).
	await sql`
		update chatroom_participants set read_conversation_id = ${last?.newest}, read_count = ${size.messages}
		where chatroom_id = ${chatroomId}`
	await sql`analyze conversations`
	log(
		`seeded ${size.members} members and ${size.messages} messages in ${Math.round(performance.now() - started)} ms`,
	)
	return {
		communityId: c,
		chatroomId,
		userIds,
		uuids: users.map((u) => u.uuid),
		middleId: last?.middle as string,
	}
}
