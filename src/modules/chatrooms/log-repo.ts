// A room's message log as rows: the conversation insert that moves the room's counters
// (messages_count, version, last_conversation_id, the writer's own unread count) and the
// read mark. Here, under chatrooms, because joining and leaving write their system lines
// (states 2 and 3) through it; conversations/repo.ts has every other conversation query.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../../lib/db'

export const MESSAGE = 0
export const JOINED = 2
export const LEFT = 3
export const POLL = 10
/** States that count as messages for unread counts (joined/left lines do not). */
export const COUNTED = [MESSAGE, POLL]

export interface ConversationRow {
	id: string
	chatroom_id: string
	community_id: number
	user_id: number
	state: number
	text: string
	attachments: unknown[]
	replied_conversation_id: string | null
	temporary_id: string | null
	is_edited: boolean
	deleted_by: number | null
	/** held back by reports (DESIGN §17): answered as removed until a CM decides */
	held: boolean
	created_at: number
	updated_at: number
}

export const conversationColumns = (db: Db) => db`
	id, chatroom_id, community_id, user_id::float8 as user_id, state, text, attachments,
	replied_conversation_id, temporary_id, is_edited, deleted_by::float8 as deleted_by, held, created_at::float8 as created_at, updated_at::float8 as updated_at`

export interface NewConversation {
	chatroom_id: string
	community_id: number
	user_id: number
	state: number
	text: string
	attachments: unknown[]
	replied_conversation_id: string | null
	temporary_id: string | null
}

/**
 * Inserts a conversation once the room's turn is ours: the first statement locks the
 * room row until commit, so writers of one room take turns, ids commit in order (a
 * reader's read mark never skips a later-committed smaller id) and `seq` is the exact
 * count of messages so far. The second statement, sent right behind it (no wait between
 * them), takes the id and the time, then writes the room's counters, the conversation
 * and the writer's own unread count. The id must come from a statement that starts
 * after the lock: Citus evaluates nextval and the clock on the coordinator before it
 * routes a statement (and refuses them in an UPDATE's SET), so taking them inside the
 * locking statement would take them before its wait. `created_at` never steps back
 * from one conversation of a room to the next: it is the later of the database clock
 * and the room's previous stamp. Callers send it last in their transaction, so the
 * turn lasts one round trip and the commit. `extra` are CTEs that read `conversation`
 * (its tags, its notice: written by the same statement); their last one must be named
 * `extra_done`.
 */
export async function insertConversation(
	db: Db,
	c: NewConversation,
	extra?: PendingQuery<Row[]>,
): Promise<{ conversation: ConversationRow; roomVersion: string }> {
	const counted = COUNTED.includes(c.state) ? 1 : 0
	const turn = db`
		select 1 from chatrooms where community_id = ${c.community_id} and id = ${c.chatroom_id}
		for update`
	const insert = db<(ConversationRow & { room_version: string })[]>`
		with stamp as (
			select nextval(pg_get_serial_sequence('conversations', 'id')) as id,
				(extract(epoch from clock_timestamp()) * 1000)::bigint as at
		), room as (
			update chatrooms set messages_count = messages_count + ${counted}, version = version + 1,
				last_conversation_id = stamp.id, updated_at = greatest(updated_at, stamp.at)
			from stamp
			where community_id = ${c.community_id} and chatrooms.id = ${c.chatroom_id}
			returning messages_count, version, last_conversation_id, updated_at
		), conversation as (
			insert into conversations (id, chatroom_id, community_id, user_id, state, text, attachments,
				replied_conversation_id, temporary_id, seq, created_at, updated_at)
			overriding system value
			select room.last_conversation_id, ${c.chatroom_id}, ${c.community_id}, ${c.user_id}, ${c.state},
				${c.text}, ${db.json(c.attachments as never)}, ${c.replied_conversation_id}, ${c.temporary_id},
				room.messages_count, room.updated_at, room.updated_at
			from room
			returning ${conversationColumns(db)}
		), own as (
			update chatroom_participants set own_unread = own_unread + 1
			where ${counted} = 1 and community_id = ${c.community_id} and chatroom_id = ${c.chatroom_id}
				and user_id = ${c.user_id}
		), ${extra ?? db`extra_done as (select 1)`}
		select conversation.*, room.version::text as room_version
		from conversation, room, (select count(*) from extra_done) extra`
	const [, [row]] = await Promise.all([turn, insert])
	const { room_version, ...conversation } = row as ConversationRow & { room_version: string }
	return { conversation, roomVersion: room_version }
}

/**
 * Moves the seat's read mark forward to the conversation; the seat's unread count of the
 * room after the move (present.ts unreadOf), or null when the mark did not move (already
 * there or further, or no seat).
 */
export async function moveReadMark(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
	conversationId: string,
): Promise<number | null> {
	const [moved] = await db`
		update chatroom_participants p set
			read_conversation_id = c.id,
			read_count = c.seq,
			own_unread = (
				select count(*) from conversations o
				where o.community_id = ${communityId} and o.chatroom_id = p.chatroom_id
					and o.user_id = p.user_id and o.id > c.id and o.state = any(${COUNTED}::smallint[]))
		from conversations c
		where p.community_id = ${communityId} and p.chatroom_id = ${chatroomId} and p.user_id = ${userId}
			and c.community_id = p.community_id and c.id = ${conversationId}
			and c.chatroom_id = ${chatroomId} and p.read_conversation_id < c.id
		returning greatest(0, (select r.messages_count from chatrooms r
			where r.community_id = ${communityId} and r.id = p.chatroom_id)
			- p.read_count - p.own_unread)::float8 as unread`
	return moved ? (moved.unread as number) : null
}

/** Adds tags; returns the user ids that were not tagged before. */
