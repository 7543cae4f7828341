// SQL of direct messages: the pair table (one row per two members, keyed by the ordered
// pair inside the community), the community's DM settings, and the reads the DM feed,
// tab and limit need. The pair row as the room rule reads it, and the block check, are
// chatrooms/dm-repo.ts (posting asks them), re-exported here.
import type { Db } from '../../lib/db'
import { type DmRow, dmColumns } from '../chatrooms/dm-repo'

export { blockedBetween, type DmRow, findDmByRoom } from '../chatrooms/dm-repo'

export interface DmSettingsRow {
	enabled: boolean
	requests_required: boolean
	daily_limit: number | null
}

/** The pair in key order. */
export const pairOf = (a: number, b: number): [number, number] => (a < b ? [a, b] : [b, a])

export async function findDmByPair(
	db: Db,
	communityId: number,
	a: number,
	b: number,
): Promise<DmRow | null> {
	const [low, high] = pairOf(a, b)
	const [row] = await db<DmRow[]>`
		select ${dmColumns(db)} from dm_rooms
		where community_id = ${communityId} and low_user_id = ${low} and high_user_id = ${high}`
	return row ?? null
}

/** The same, locked for the rest of the transaction (request answers serialize on it). */
export async function lockDmByRoom(
	db: Db,
	communityId: number,
	chatroomId: string,
): Promise<DmRow | null> {
	const [row] = await db<DmRow[]>`
		select ${dmColumns(db)} from dm_rooms
		where community_id = ${communityId} and chatroom_id = ${chatroomId} for update`
	return row ?? null
}

/**
 * Claims the pair: true for the one caller whose row went in. A concurrent claim of the
 * same pair waits on the primary key until the first commits, then inserts nothing.
 */
export async function claimPair(
	db: Db,
	row: {
		communityId: number
		createdBy: number
		other: number
		requestNeeded: boolean
		now: number
	},
): Promise<boolean> {
	const [low, high] = pairOf(row.createdBy, row.other)
	const inserted = await db`
		insert into dm_rooms (community_id, low_user_id, high_user_id, created_by, request_needed, created_at)
		values (${row.communityId}, ${low}, ${high}, ${row.createdBy}, ${row.requestNeeded}, ${row.now})
		on conflict do nothing returning 1`
	return inserted.length > 0
}

export async function setPairRoom(
	db: Db,
	communityId: number,
	pair: [number, number],
	chatroomId: string,
): Promise<void> {
	await db`
		update dm_rooms set chatroom_id = ${chatroomId}
		where community_id = ${communityId} and low_user_id = ${pair[0]} and high_user_id = ${pair[1]}`
}

export async function setRequestState(
	db: Db,
	communityId: number,
	chatroomId: string,
	change: { state: number; requestedBy?: number; at: number },
): Promise<void> {
	const requested =
		change.state === 0
			? db`, requested_by = ${change.requestedBy ?? null}, request_created_at = ${change.at}`
			: change.state === 2
				? db`, rejected_at = ${change.at}`
				: db``
	await db`
		update dm_rooms set chat_request_state = ${change.state} ${requested}
		where community_id = ${communityId} and chatroom_id = ${chatroomId}`
}

/** DMs `userId` started since `since` (ms), oldest first (the limit's window). */
export async function startedSince(
	db: Db,
	communityId: number,
	userId: number,
	since: number,
): Promise<number[]> {
	const rows = await db`
		select created_at::float8 as created_at from dm_rooms
		where community_id = ${communityId} and created_by = ${userId} and created_at > ${since}
		order by created_at`
	return rows.map((r) => r.created_at as number)
}

/**
 * Serializes the DM starts of one member (the limit's count and its insert). The key is a
 * 64-bit hash, as connections/repo.ts lockPair's: user ids are bigint, past the two-int4
 * form of the lock (a rare collision only makes two members take turns).
 */
export async function lockStarter(db: Db, communityId: number, userId: number): Promise<void> {
	await db`select pg_advisory_xact_lock(hashtextextended(${`dm-start:${communityId}:${userId}`}, 0))`
}

export async function findDmSettings(db: Db, communityId: number): Promise<DmSettingsRow | null> {
	const [row] = await db<DmSettingsRow[]>`
		select enabled, requests_required, daily_limit from dm_settings where community_id = ${communityId}`
	return row ?? null
}

export async function saveDmSettings(
	db: Db,
	communityId: number,
	settings: DmSettingsRow,
	now: number,
): Promise<void> {
	await db`
		insert into dm_settings (community_id, enabled, requests_required, daily_limit, updated_at)
		values (${communityId}, ${settings.enabled}, ${settings.requests_required}, ${settings.daily_limit}, ${now})
		on conflict (community_id) do update set enabled = excluded.enabled,
			requests_required = excluded.requests_required, daily_limit = excluded.daily_limit,
			updated_at = excluded.updated_at`
}

/**
 * The pairs of the DM rooms where `userId` is seated, most recently active room first;
 * the room's `updated_at` within the bounds (ms).
 */
export async function dmRoomsOf(
	db: Db,
	communityId: number,
	userId: number,
	bounds: { min: number; max: number },
	limit: number,
	offset: number,
): Promise<{ rows: DmRow[]; total: number }> {
	const from = db`
		from dm_rooms d
		join chatrooms r on r.id = d.chatroom_id and r.community_id = d.community_id and not r.is_deleted
		join chatroom_participants p
			on p.community_id = r.community_id and p.chatroom_id = r.id and p.user_id = ${userId}
		where d.community_id = ${communityId}
			and (d.low_user_id = ${userId} or d.high_user_id = ${userId})
			and r.updated_at between ${bounds.min} and ${bounds.max}`
	const rows = await db<DmRow[]>`
		select ${dmColumns(db, db`d.`)} ${from} order by r.updated_at desc, r.id desc
		limit ${limit} offset ${offset}`
	const [count] = await db`select count(*)::int as n ${from}`
	return { rows, total: count?.n ?? 0 }
}

/** Unread conversations of others over every DM seat of the user. */
export async function unreadDmCount(db: Db, communityId: number, userId: number): Promise<number> {
	const [row] = await db`
		select coalesce(sum(greatest(0, r.messages_count - p.read_count - p.own_unread)), 0)::float8 as n
		from dm_rooms d
		join chatrooms r on r.community_id = d.community_id and r.id = d.chatroom_id and not r.is_deleted
		join chatroom_participants p
			on p.community_id = r.community_id and p.chatroom_id = r.id and p.user_id = ${userId}
		where d.community_id = ${communityId} and (d.low_user_id = ${userId} or d.high_user_id = ${userId})`
	return (row?.n as number) ?? 0
}
