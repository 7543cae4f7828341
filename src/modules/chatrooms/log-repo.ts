// A room's message log as rows: the conversation insert that moves the room's counters
// (messages_count, version, last_conversation_id, the writer's own unread count) and the
// read mark. Here, under chatrooms, because joining and leaving write their system lines
// (states 2 and 3) through it; conversations/repo.ts has every other conversation query.
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
	created_at: number
	updated_at: number
}

export const conversationColumns = (db: Db) => db`
	id, chatroom_id, community_id, user_id, state, text, attachments, replied_conversation_id,
	temporary_id, is_edited, deleted_by, created_at::float8 as created_at, updated_at::float8 as updated_at`

export interface NewConversation {
	chatroom_id: string
	community_id: number
	user_id: number
	state: number
	text: string
	attachments: unknown[]
	replied_conversation_id: string | null
	temporary_id: string | null
	now: number
}

/**
 * Inserts a conversation. The room row is updated first, which locks it until commit:
 * writers of one room take turns, so ids commit in order (a reader's read mark never
 * skips a later-committed smaller id) and `seq` is the exact count of messages so far.
 */
export async function insertConversation(
	db: Db,
	c: NewConversation,
): Promise<{ conversation: ConversationRow; roomVersion: string }> {
	const counted = COUNTED.includes(c.state) ? 1 : 0
	const [room] = await db`
		update chatrooms set messages_count = messages_count + ${counted}, version = version + 1
		where id = ${c.chatroom_id} returning messages_count, version::text`
	const [row] = await db<ConversationRow[]>`
		insert into conversations (chatroom_id, community_id, user_id, state, text, attachments,
			replied_conversation_id, temporary_id, seq, created_at, updated_at)
		values (${c.chatroom_id}, ${c.community_id}, ${c.user_id}, ${c.state}, ${c.text},
			${db.json(c.attachments as never)}, ${c.replied_conversation_id}, ${c.temporary_id},
			${room?.messages_count}, ${c.now}, ${c.now})
		returning ${conversationColumns(db)}`
	const conversation = row as ConversationRow
	await db`
		update chatrooms set last_conversation_id = ${conversation.id}, updated_at = ${c.now}
		where id = ${c.chatroom_id}`
	if (counted)
		await db`
			update chatroom_participants set own_unread = own_unread + 1
			where chatroom_id = ${c.chatroom_id} and user_id = ${c.user_id}`
	return { conversation, roomVersion: room?.version as string }
}

export async function moveReadMark(
	db: Db,
	chatroomId: string,
	userId: number,
	conversationId: string,
): Promise<void> {
	await db`
		update chatroom_participants p set
			read_conversation_id = c.id,
			read_count = c.seq,
			own_unread = (
				select count(*) from conversations o
				where o.chatroom_id = p.chatroom_id and o.user_id = p.user_id and o.id > c.id
					and o.state = any(${COUNTED}::smallint[]))
		from conversations c
		where p.chatroom_id = ${chatroomId} and p.user_id = ${userId}
			and c.id = ${conversationId} and c.chatroom_id = ${chatroomId}
			and p.read_conversation_id < c.id`
}

/** Adds tags; returns the user ids that were not tagged before. */
