// SQL of conversations: keyset page reads, the sync read by updated_at, edits, deletes
// and tags. The insert (which serializes on the room row, so ids of one room commit in
// order and `seq` counts the room's messages exactly) and the read mark live in
// chatrooms/log-repo.ts, re-exported here.
import type { Db } from '../../lib/db'
import { type ConversationRow, conversationColumns as columns } from '../chatrooms/log-repo'

export {
	type ConversationRow,
	insertConversation,
	MESSAGE,
	moveReadMark,
	POLL,
} from '../chatrooms/log-repo'

export async function findConversation(
	db: Db,
	communityId: number,
	id: string,
): Promise<ConversationRow | null> {
	const [row] = await db<ConversationRow[]>`
		select ${columns(db)} from conversations where id = ${id} and community_id = ${communityId}`
	return row ?? null
}

export async function findConversations(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<ConversationRow[]> {
	if (ids.length === 0) return []
	return db<ConversationRow[]>`
		select ${columns(db)} from conversations
		where community_id = ${communityId} and id = any(${ids}::bigint[])`
}

export type Scroll =
	| { anchor: null }
	| { anchor: string; direction: 'older' | 'newer'; include?: boolean }

/** One page of a room, oldest first: the newest, or older/newer than an anchor (keyset). */
export async function pageOfRoom(
	db: Db,
	communityId: number,
	chatroomId: string,
	scroll: Scroll,
	limit: number,
): Promise<ConversationRow[]> {
	// `include` (chat-js jumping to a conversation) puts the anchor itself on the page.
	if (scroll.anchor !== null && scroll.direction === 'newer')
		return db<ConversationRow[]>`
			select ${columns(db)} from conversations
			where community_id = ${communityId} and chatroom_id = ${chatroomId}
				and ${scroll.include ? db`id >= ${scroll.anchor}` : db`id > ${scroll.anchor}`}
			order by id limit ${limit}`
	const before =
		scroll.anchor === null
			? db``
			: scroll.include
				? db`and id <= ${scroll.anchor}`
				: db`and id < ${scroll.anchor}`
	const rows = await db<ConversationRow[]>`
		select ${columns(db)} from conversations
		where community_id = ${communityId} and chatroom_id = ${chatroomId} ${before}
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
	communityId: number,
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
		where community_id = ${communityId} and chatroom_id = ${chatroomId} ${start} and updated_at <= ${bounds.max}
		order by updated_at, id limit ${limit} offset ${'skip' in from ? from.skip : 0}`
}

/**
 * Holds conversations back (reported past the threshold) or lets them go; the rows that
 * changed, so their rooms' versions rise with them.
 */
export async function setHeld(
	db: Db,
	communityId: number,
	ids: string[],
	held: boolean,
	now: number,
): Promise<ConversationRow[]> {
	if (ids.length === 0) return []
	return db<ConversationRow[]>`
		update conversations set held = ${held}, updated_at = ${now}
		where community_id = ${communityId} and id = any(${ids}::bigint[]) and held <> ${held}
			and deleted_by is null
		returning ${columns(db)}`
}

/** A change to a room's conversations that readers of its cached newest page must see. */
export async function bumpRoomVersion(
	db: Db,
	communityId: number,
	chatroomId: string,
): Promise<string> {
	const [row] = await db`
		update chatrooms set version = version + 1
		where community_id = ${communityId} and id = ${chatroomId} returning version::text`
	return row?.version as string
}

export async function editConversation(
	db: Db,
	communityId: number,
	id: string,
	text: string,
	now: number,
): Promise<ConversationRow> {
	const [row] = await db<ConversationRow[]>`
		update conversations set text = ${text}, is_edited = true, updated_at = ${now}
		where community_id = ${communityId} and id = ${id} returning ${columns(db)}`
	return row as ConversationRow
}

export async function markDeleted(
	db: Db,
	communityId: number,
	id: string,
	by: number,
	now: number,
): Promise<void> {
	await db`
		update conversations set deleted_by = ${by}, text = '', attachments = '[]', updated_at = ${now}
		where community_id = ${communityId} and id = ${id} and deleted_by is null`
}

/**
 * Moves a member's read mark forward to `conversationId` (never back): the mark's
 * count is that conversation's seq, and the member's own messages after it are
 * counted now so they are never unread to them.
 */
export async function addTags(
	db: Db,
	communityId: number,
	conversationId: string,
	userIds: number[],
): Promise<number[]> {
	if (userIds.length === 0) return []
	const rows = await db`
		insert into conversation_tags (community_id, conversation_id, user_id)
		select ${communityId}, ${conversationId}, unnest(${userIds}::int8[])
		on conflict do nothing returning user_id::float8 as user_id`
	return rows.map((r) => r.user_id as number)
}

/** Service uuids of a room's participants (the `members` of the conversation webhook form). */
export async function participantUuids(
	db: Db,
	communityId: number,
	chatroomId: string,
): Promise<string[]> {
	const rows = await db`
		select u.uuid from chatroom_participants p
		join users u on u.community_id = p.community_id and u.id = p.user_id
		where p.community_id = ${communityId} and p.chatroom_id = ${chatroomId}
		order by p.joined_at, p.user_id`
	return rows.map((r) => r.uuid as string)
}

/**
 * Participants other than `authorId` who have not muted the room, with their
 * noti_state: a page of `limit` in user id order after `afterUserId`; with
 * `withDevice`, only those with a push device (all a push can reach).
 */
export async function unmutedParticipants(
	db: Db,
	communityId: number,
	chatroomId: string,
	authorId: number,
	page: { afterUserId: number; limit: number; withDevice: boolean },
) {
	const reachable = page.withDevice
		? db`and exists (select 1 from devices d
			where d.community_id = ${communityId} and d.user_id = p.user_id)`
		: db``
	return db<{ user_id: number; uuid: string; user_unique_id: string; noti_state: number }[]>`
		select p.user_id::float8 as user_id, u.uuid, u.user_unique_id, p.noti_state
		from chatroom_participants p
		join users u on u.community_id = p.community_id and u.id = p.user_id and not u.is_deleted
		where p.community_id = ${communityId} and p.chatroom_id = ${chatroomId} and p.user_id > ${page.afterUserId} and p.user_id <> ${authorId}
			and not p.is_muted ${reachable}
		order by p.user_id limit ${page.limit}`
}

/** The tags of a new conversation, as a CTE of its insert (chatrooms/log-repo.ts insertConversation). */
export const tagsCte = (db: Db, communityId: number, userIds: number[]) => db`
	tags as (
		insert into conversation_tags (community_id, conversation_id, user_id)
		select ${communityId}, conversation.id, unnest(${userIds}::int8[]) from conversation
		on conflict do nothing)`
