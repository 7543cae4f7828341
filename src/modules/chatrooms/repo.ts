// SQL of chatrooms and their participants. Room and conversation ids (bigint) come back
// as strings (the wire form); user ids (bigint, held as numbers), times and counters are
// cast to float8 so they arrive as numbers.
import type { Db } from '../../lib/db'
import { paged } from '../../lib/paged'
import type { JoinMethod } from './model'

export interface ChatroomRow {
	id: string
	community_id: number
	title: string
	header: string
	chatroom_image_url: string
	type: number
	is_secret: boolean
	created_by: number | null
	participants_count: number
	messages_count: number
	last_conversation_id: string | null
	/** bumped by every conversation write (the newest-page cache key) */
	version: string
	/** the conversation pinned as the room's topic (PUT /conversation/topic) */
	topic_conversation_id: string | null
	created_at: number
	updated_at: number
}

export interface ParticipantRow {
	chatroom_id: string
	user_id: number
	join_method: JoinMethod
	noti_state: number
	is_muted: boolean
	read_conversation_id: string
	read_count: number
	own_unread: number
	joined_at: number
}

export const roomColumns = (db: Db) => db`
	id, community_id, title, header, chatroom_image_url, type, is_secret, created_by::float8 as created_by,
	participants_count, messages_count::float8 as messages_count, last_conversation_id, version,
	topic_conversation_id::text as topic_conversation_id, created_at::float8 as created_at, updated_at::float8 as updated_at`

const participantColumns = (db: Db) => db`
	chatroom_id, user_id::float8 as user_id, join_method, noti_state, is_muted, read_conversation_id,
	read_count::float8 as read_count, own_unread::float8 as own_unread, joined_at::float8 as joined_at`

/** A decimal id as bigint text, or null (so a bad id is "not found", never a cast error). */
export const numericId = (value: string | number | undefined | null): string | null => {
	const text = String(value ?? '').trim()
	return /^[1-9]\d{0,17}$/.test(text) ? text : null
}

export async function findChatroom(
	db: Db,
	communityId: number,
	chatroomId: string | number,
): Promise<ChatroomRow | null> {
	const id = numericId(chatroomId)
	if (!id) return null
	const [row] = await db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where id = ${id} and community_id = ${communityId} and not is_deleted`
	return row ?? null
}

/** Live rooms of the community among `ids`, in no particular order. */
export async function findChatrooms(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<ChatroomRow[]> {
	if (ids.length === 0) return []
	return db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where community_id = ${communityId} and id = any(${ids}::bigint[]) and not is_deleted`
}

export interface RoomForViewer {
	room: ChatroomRow
	seat: ParticipantRow | null
}

/** The room and the viewer's seat in it, in one query (the hot path). */
export async function findRoomForViewer(
	db: Db,
	communityId: number,
	chatroomId: string | number,
	userId: number,
): Promise<RoomForViewer | null> {
	const id = numericId(chatroomId)
	if (!id) return null
	const [row] = await db`
		select to_jsonb(r) as room, to_jsonb(p) as seat
		from (select ${roomColumns(db)} from chatrooms
			where id = ${id} and community_id = ${communityId} and not is_deleted) r
		left join lateral (select ${participantColumns(db)} from chatroom_participants
			where community_id = r.community_id and chatroom_id = r.id and user_id = ${userId}) p on true`
	if (!row) return null
	return { room: asRoom(row.room), seat: row.seat ? asSeat(row.seat) : null }
}

// to_jsonb turns bigint into JSON numbers; ids stay decimal strings on the wire.
const asRoom = (r: Record<string, unknown>) =>
	({
		...r,
		id: String(r.id),
		version: String(r.version),
		last_conversation_id: r.last_conversation_id === null ? null : String(r.last_conversation_id),
		topic_conversation_id:
			r.topic_conversation_id === null ? null : String(r.topic_conversation_id),
	}) as ChatroomRow
const asSeat = (p: Record<string, unknown>) =>
	({
		...p,
		chatroom_id: String(p.chatroom_id),
		read_conversation_id: String(p.read_conversation_id),
	}) as ParticipantRow

/** The room row locked for the rest of the transaction (posting and seating serialize on it). */
export async function lockChatroom(
	db: Db,
	communityId: number,
	chatroomId: string,
): Promise<ChatroomRow | null> {
	const [row] = await db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where community_id = ${communityId} and id = ${chatroomId} and not is_deleted for update`
	return row ?? null
}

export interface NewChatroom {
	community_id: number
	title: string
	header: string
	chatroom_image_url: string
	type: number
	is_secret: boolean
	created_by: number
	now: number
}

export async function insertChatroom(db: Db, room: NewChatroom): Promise<ChatroomRow> {
	const [row] = await db<ChatroomRow[]>`
		insert into chatrooms (community_id, title, header, chatroom_image_url, type, is_secret, created_by, created_at, updated_at)
		values (${room.community_id}, ${room.title}, ${room.header}, ${room.chatroom_image_url}, ${room.type},
			${room.is_secret}, ${room.created_by}, ${room.now}, ${room.now})
		returning ${roomColumns(db)}`
	return row as ChatroomRow
}

export async function updateChatroom(
	db: Db,
	communityId: number,
	id: string,
	fields: { title?: string; header?: string; chatroom_image_url?: string },
	now: number,
): Promise<void> {
	await db`
		update chatrooms set
			title = coalesce(${fields.title ?? null}, title),
			header = coalesce(${fields.header ?? null}, header),
			chatroom_image_url = coalesce(${fields.chatroom_image_url ?? null}, chatroom_image_url),
			updated_at = ${now}
		where community_id = ${communityId} and id = ${id}`
}

/** Pins a conversation as the room's topic (null clears it). */
export async function setRoomTopic(
	db: Db,
	communityId: number,
	chatroomId: string,
	conversationId: string | null,
	now: number,
): Promise<void> {
	await db`
		update chatrooms set topic_conversation_id = ${conversationId}, updated_at = ${now}
		where community_id = ${communityId} and id = ${chatroomId}`
}

export async function softDeleteChatroom(
	db: Db,
	communityId: number,
	id: string,
	now: number,
): Promise<void> {
	await db`
		update chatrooms set is_deleted = true, updated_at = ${now}
		where community_id = ${communityId} and id = ${id}`
}

/**
 * Rooms of the community a viewer may list: open rooms plus the given secret ones,
 * newest first. DM rooms (type 10) are listed by the DM feed (modules/dms), never here.
 */
export async function listChatrooms(
	db: Db,
	communityId: number,
	secretIds: string[] | 'all',
	limit: number,
	offset: number,
): Promise<{ rows: ChatroomRow[]; total: number }> {
	const visible =
		secretIds === 'all' ? db`true` : db`(not is_secret or id = any(${secretIds}::bigint[]))`
	const rows = await db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where community_id = ${communityId} and not is_deleted and type <> 10 and ${visible}
		order by id desc limit ${limit} offset ${offset}`
	const [count] = await db`
		select count(*)::int as n from chatrooms
		where community_id = ${communityId} and not is_deleted and type <> 10 and ${visible}`
	return { rows, total: count?.n ?? 0 }
}

/** Rooms `memberId` is seated in that a viewer may list (open ones plus `secretIds`), newest first. */
export async function listRoomsOfMember(
	db: Db,
	communityId: number,
	memberId: number,
	viewer: { userId: number; secret: SecretRooms },
	limit: number,
	offset: number,
): Promise<{ rows: ChatroomRow[]; total: number }> {
	const visible = readableRoom(db, 'chatrooms', viewer.secret, viewer.userId, communityId)
	return paged<ChatroomRow>(db, {
		columns: roomColumns(db),
		from: db`from chatrooms where community_id = ${communityId} and not is_deleted and ${visible}
			and id in (select chatroom_id from chatroom_participants
				where community_id = ${communityId} and user_id = ${memberId})`,
		orderBy: db`id desc`,
		limit,
		offset,
	})
}

/** A direct-message room between two members (DESIGN section 19). */
export const DM = 10

/** The secret rooms a viewer may read (chatrooms/access.ts visibleSecretRooms): ids, or 'all' for a CM. */
export type SecretRooms = string[] | 'all'

/**
 * The room (alias `room`) is one the viewer may read: an open room or a secret one of
 * `secret`. A CM's 'all' still leaves out other members' DMs: a DM is read by its two
 * seated members only. The one SQL form of the rule for lists of rooms.
 */
export const readableRoom = (
	db: Db,
	room: string,
	secret: SecretRooms,
	viewerId: number,
	communityId: number,
) => {
	const r = db(room)
	// the community as a value, not the room's column: Citus routes a subquery under OR
	// to one shard only by a value of its own
	return secret === 'all'
		? db`(${r}.type <> ${DM} or exists (select 1 from chatroom_participants dm
			where dm.community_id = ${communityId} and dm.chatroom_id = ${r}.id
				and dm.user_id = ${viewerId}))`
		: db`(not ${r}.is_secret or ${r}.id = any(${secret}::bigint[]))`
}

/** The rooms a user is seated in (leaving the community unseats them from each). */
export async function seatedRoomIds(
	db: Db,
	communityId: number,
	userId: number,
): Promise<string[]> {
	const rows = await db<{ chatroom_id: string }[]>`
		select chatroom_id from chatroom_participants
		where community_id = ${communityId} and user_id = ${userId} order by chatroom_id`
	return rows.map((row) => row.chatroom_id)
}

export async function findParticipant(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
): Promise<ParticipantRow | null> {
	const [row] = await db<ParticipantRow[]>`
		select ${participantColumns(db)} from chatroom_participants
		where community_id = ${communityId} and chatroom_id = ${chatroomId} and user_id = ${userId}`
	return row ?? null
}

/** The viewer's seats in these rooms, by room id. */
export async function findSeats(
	db: Db,
	communityId: number,
	userId: number,
	chatroomIds: string[],
): Promise<Map<string, ParticipantRow>> {
	if (chatroomIds.length === 0) return new Map()
	const rows = await db<ParticipantRow[]>`
		select ${participantColumns(db)} from chatroom_participants
		where community_id = ${communityId} and user_id = ${userId}
			and chatroom_id = any(${chatroomIds}::bigint[])`
	return new Map(rows.map((r) => [r.chatroom_id, r]))
}

/** Secret rooms of the community where the user is seated, with how they were seated. */
export async function secretSeats(
	db: Db,
	communityId: number,
	userId: number,
): Promise<{ chatroom_id: string; join_method: JoinMethod }[]> {
	return db<{ chatroom_id: string; join_method: JoinMethod }[]>`
		select p.chatroom_id, p.join_method from chatroom_participants p
		join chatrooms r on r.community_id = p.community_id and r.id = p.chatroom_id
		where p.community_id = ${communityId} and p.user_id = ${userId} and r.is_secret and not r.is_deleted`
}

export interface NewSeat {
	chatroom_id: string
	user_id: number
	community_id: number
	join_method: JoinMethod
	noti_state: number
	read_conversation_id: string
	read_count: number
	now: number
}

/** Seats the user; false when already seated. */
export async function insertParticipant(db: Db, seat: NewSeat): Promise<boolean> {
	const rows = await db`
		insert into chatroom_participants (chatroom_id, user_id, community_id, join_method, noti_state,
			read_conversation_id, read_count, joined_at)
		values (${seat.chatroom_id}, ${seat.user_id}, ${seat.community_id}, ${seat.join_method},
			${seat.noti_state}, ${seat.read_conversation_id}, ${seat.read_count}, ${seat.now})
		on conflict do nothing returning 1`
	return rows.length > 0
}

export async function deleteParticipant(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
): Promise<boolean> {
	const rows = await db`
		delete from chatroom_participants
		where community_id = ${communityId} and chatroom_id = ${chatroomId} and user_id = ${userId}
		returning 1`
	return rows.length > 0
}

export async function addParticipantsCount(
	db: Db,
	communityId: number,
	chatroomId: string,
	delta: number,
) {
	await db`
		update chatrooms set participants_count = participants_count + ${delta}
		where community_id = ${communityId} and id = ${chatroomId}`
}

export async function listParticipants(
	db: Db,
	communityId: number,
	chatroomId: string,
	limit: number,
	offset: number,
): Promise<number[]> {
	const rows = await db`
		select user_id::float8 as user_id from chatroom_participants
		where community_id = ${communityId} and chatroom_id = ${chatroomId}
		order by joined_at, user_id limit ${limit} offset ${offset}`
	return rows.map((r) => r.user_id as number)
}

export async function setMuted(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
	muted: boolean,
) {
	const rows = await db`
		update chatroom_participants set is_muted = ${muted}
		where community_id = ${communityId} and chatroom_id = ${chatroomId} and user_id = ${userId}
		returning 1`
	return rows.length > 0
}

export async function setNotiState(
	db: Db,
	communityId: number,
	chatroomId: string,
	userId: number,
	state: number,
) {
	const rows = await db`
		update chatroom_participants set noti_state = ${state}
		where community_id = ${communityId} and chatroom_id = ${chatroomId} and user_id = ${userId}
		returning 1`
	return rows.length > 0
}

export async function communityName(db: Db, communityId: number): Promise<string> {
	const [row] = await db`select name from communities where id = ${communityId}`
	return (row?.name as string) ?? ''
}
