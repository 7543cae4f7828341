// SQL of conversations: the write that serializes on the room row (so ids of one room
// commit in order and `seq` counts the room's messages exactly), keyset page reads,
// the sync read by updated_at, read marks and tags.
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

const columns = (db: Db) => db`
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
export async function insertConversation(db: Db, c: NewConversation): Promise<ConversationRow> {
	const counted = COUNTED.includes(c.state) ? 1 : 0
	const [room] = await db`
		update chatrooms set messages_count = messages_count + ${counted}, version = version + 1
		where id = ${c.chatroom_id} returning messages_count`
	const [row] = await db<ConversationRow[]>`
		insert into conversations (chatroom_id, community_id, user_id, state, text, attachments,
			replied_conversation_id, temporary_id, seq, created_at, updated_at)
		values (${c.chatroom_id}, ${c.community_id}, ${c.user_id}, ${c.state}, ${c.text},
			${db.json(c.attachments as never)}, ${c.replied_conversation_id}, ${c.temporary_id},
			${room?.messages_count}, ${c.now}, ${c.now})
		returning ${columns(db)}`
	const conversation = row as ConversationRow
	await db`
		update chatrooms set last_conversation_id = ${conversation.id}, updated_at = ${c.now}
		where id = ${c.chatroom_id}`
	if (counted)
		await db`
			update chatroom_participants set own_unread = own_unread + 1
			where chatroom_id = ${c.chatroom_id} and user_id = ${c.user_id}`
	return conversation
}

export async function findConversation(
	db: Db,
	communityId: number,
	id: string,
): Promise<ConversationRow | null> {
	const [row] = await db<ConversationRow[]>`
		select ${columns(db)} from conversations where id = ${id} and community_id = ${communityId}`
	return row ?? null
}

export async function findConversations(db: Db, ids: string[]): Promise<ConversationRow[]> {
	if (ids.length === 0) return []
	return db<ConversationRow[]>`
		select ${columns(db)} from conversations where id = any(${ids}::bigint[])`
}

export type Scroll = { anchor: null } | { anchor: string; direction: 'older' | 'newer' }

/** One page of a room, oldest first: the newest, or older/newer than an anchor (keyset). */
export async function pageOfRoom(
	db: Db,
	chatroomId: string,
	scroll: Scroll,
	limit: number,
): Promise<ConversationRow[]> {
	if (scroll.anchor !== null && scroll.direction === 'newer')
		return db<ConversationRow[]>`
			select ${columns(db)} from conversations
			where chatroom_id = ${chatroomId} and id > ${scroll.anchor}
			order by id limit ${limit}`
	const before = scroll.anchor === null ? db`` : db`and id < ${scroll.anchor}`
	const rows = await db<ConversationRow[]>`
		select ${columns(db)} from conversations
		where chatroom_id = ${chatroomId} ${before}
		order by id desc limit ${limit}`
	return rows.reverse()
}

/**
 * Conversations changed within [min, max] ms, by (updated_at, id): after a keyset
 * position (the `next_cursor` of the previous page), or `skip` rows in for clients
 * that ask by page number.
 */
export async function changedInRoom(
	db: Db,
	chatroomId: string,
	bounds: { min: number; max: number },
	from: { after: { updatedAt: number; id: string } } | { skip: number },
	limit: number,
): Promise<ConversationRow[]> {
	const start =
		'after' in from
			? db`and (updated_at, id) > (${from.after.updatedAt}, ${from.after.id})`
			: db`and updated_at >= ${bounds.min}`
	return db<ConversationRow[]>`
		select ${columns(db)} from conversations
		where chatroom_id = ${chatroomId} ${start} and updated_at <= ${bounds.max}
		order by updated_at, id limit ${limit} offset ${'skip' in from ? from.skip : 0}`
}

/** A change to a room's conversations that readers of its cached newest page must see. */
export async function bumpRoomVersion(db: Db, chatroomId: string): Promise<void> {
	await db`update chatrooms set version = version + 1 where id = ${chatroomId}`
}

export async function editConversation(
	db: Db,
	id: string,
	text: string,
	now: number,
): Promise<ConversationRow> {
	const [row] = await db<ConversationRow[]>`
		update conversations set text = ${text}, is_edited = true, updated_at = ${now}
		where id = ${id} returning ${columns(db)}`
	return row as ConversationRow
}

export async function markDeleted(db: Db, id: string, by: number, now: number): Promise<void> {
	await db`
		update conversations set deleted_by = ${by}, text = '', attachments = '[]', updated_at = ${now}
		where id = ${id} and deleted_by is null`
}

/**
 * Moves a member's read mark forward to `conversationId` (never back): the mark's
 * count is that conversation's seq, and the member's own messages after it are
 * counted now so they are never unread to them.
 */
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
export async function addTags(
	db: Db,
	conversationId: string,
	userIds: number[],
): Promise<number[]> {
	if (userIds.length === 0) return []
	const rows = await db`
		insert into conversation_tags (conversation_id, user_id)
		select ${conversationId}, unnest(${userIds}::int[])
		on conflict do nothing returning user_id`
	return rows.map((r) => r.user_id as number)
}

export async function taggedIn(db: Db, conversationId: string): Promise<number[]> {
	const rows =
		await db`select user_id from conversation_tags where conversation_id = ${conversationId}`
	return rows.map((r) => r.user_id as number)
}

/** Service uuids of a room's participants (the `members` of the conversation webhook form). */
export async function participantUuids(db: Db, chatroomId: string): Promise<string[]> {
	const rows = await db`
		select u.uuid from chatroom_participants p join users u on u.id = p.user_id
		where p.chatroom_id = ${chatroomId} order by p.joined_at, p.user_id`
	return rows.map((r) => r.uuid as string)
}

/** Participants other than `authorId` who have not muted the room, with their noti_state. */
export async function unmutedParticipants(db: Db, chatroomId: string, authorId: number) {
	return db<{ user_id: number; uuid: string; user_unique_id: string; noti_state: number }[]>`
		select p.user_id, u.uuid, u.user_unique_id, p.noti_state from chatroom_participants p
		join users u on u.id = p.user_id and not u.is_deleted
		where p.chatroom_id = ${chatroomId} and p.user_id <> ${authorId} and not p.is_muted
		order by p.user_id`
}
