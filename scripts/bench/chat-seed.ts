// Seeds the chat benchmark's rooms straight into Postgres: a community, its members,
// one chatroom where every member is seated with a long history of messages, and
// smaller rooms (the first N members seated, a short history) for the write row, with
// the counters (participants, messages, last conversation, per-message seq) as the API
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
	/** every room: the big one (all members) and the smaller ones (the first `participants` members) */
	rooms: { participants: number; chatroomId: string }[]
}

/** Messages seeded in each smaller room. */
const SMALL_ROOM_MESSAGES = 1000

export async function seedChat(
	size: { members: number; messages: number; smallRooms: number[] },
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
		returning id::float8 as id, uuid`
	const userIds = users.map((u) => u.id)
	const big = await seedRoom(c, userIds, size.messages, t0)
	const rooms = [{ participants: size.members, chatroomId: big.chatroomId }]
	for (const participants of size.smallRooms) {
		const small = await seedRoom(c, userIds.slice(0, participants), SMALL_ROOM_MESSAGES, t0)
		rooms.push({ participants, chatroomId: small.chatroomId })
	}
	await sql`analyze conversations`
	log(
		`seeded ${size.members} members, ${size.messages} messages and rooms of ${size.smallRooms.join(', ')} in ${Math.round(performance.now() - started)} ms`,
	)
	return {
		communityId: c,
		chatroomId: big.chatroomId,
		userIds,
		uuids: users.map((u) => u.uuid),
		middleId: big.middleId,
		rooms,
	}
}

/** One room where `userIds` are seated, with `messages` messages that everyone has read. */
async function seedRoom(c: number, userIds: number[], messages: number, t0: number) {
	const members = userIds.length
	const [room] = await sql<{ id: string }[]>`
		insert into chatrooms (community_id, title, created_by, participants_count, created_at, updated_at)
		values (${c}, 'Bench room', ${userIds[0] as number}, ${members}, ${t0}, ${t0}) returning id`
	const chatroomId = (room as { id: string }).id
	await sql`
		insert into chatroom_participants (chatroom_id, user_id, community_id, join_method, noti_state, joined_at)
		select ${chatroomId}, id, ${c}, 'self_joined', 1, ${t0} from unnest(${userIds}::int8[]) id`
	await sql`
		insert into conversations (chatroom_id, community_id, user_id, state, text, seq, created_at, updated_at)
		select ${chatroomId}, ${c}, (${userIds}::int8[])[1 + g % ${members}], 0,
			'Message number ' || g || ' in the bench room, long enough to look like chat', g, ${t0}::bigint + g * 1000, ${t0}::bigint + g * 1000
		from generate_series(1, ${messages}) g`
	const [last] = await sql`
		select max(id)::text as newest, percentile_disc(0.5) within group (order by id)::text as middle
		from conversations where community_id = ${c} and chatroom_id = ${chatroomId}`
	await sql`
		update chatrooms set messages_count = ${messages}, last_conversation_id = ${last?.newest},
			version = 1 where community_id = ${c} and id = ${chatroomId}`
	// Every member has read everything so far (as after a first visit).
	await sql`
		update chatroom_participants set read_conversation_id = ${last?.newest}, read_count = ${messages}
		where community_id = ${c} and chatroom_id = ${chatroomId}`
	return { chatroomId, middleId: last?.middle as string }
}
