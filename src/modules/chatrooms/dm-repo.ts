// The DM pair row as the room rule reads it (chatrooms/dm-rule.ts): which two members a
// DM room is between, its request state, and whether a block stands between them. Here,
// under chatrooms, because posting in a room asks it; modules/dms has every other DM
// query (and re-exports these).
import type { Db } from '../../lib/db'
import { blockedBetween as blockRule } from '../../lib/sql-rules'

export interface DmRow {
	community_id: number
	low_user_id: number
	high_user_id: number
	chatroom_id: string | null
	created_by: number
	request_needed: boolean
	/** null: no request needed; 0 pending; 1 accepted; 2 rejected */
	chat_request_state: number | null
	requested_by: number | null
	request_created_at: number | null
	rejected_at: number | null
	created_at: number
}

/** The row's columns, optionally qualified by a table alias (`d.`). */
export const dmColumns = (db: Db, t = db``) => db`
	${t}community_id, ${t}low_user_id::float8 as low_user_id, ${t}high_user_id::float8 as high_user_id,
	${t}chatroom_id::text as chatroom_id, ${t}created_by::float8 as created_by, ${t}request_needed,
	${t}chat_request_state, ${t}requested_by::float8 as requested_by,
	${t}request_created_at::float8 as request_created_at, ${t}rejected_at::float8 as rejected_at,
	${t}created_at::float8 as created_at`

export async function findDmByRoom(
	db: Db,
	communityId: number,
	chatroomId: string,
): Promise<DmRow | null> {
	const [row] = await db<DmRow[]>`
		select ${dmColumns(db)} from dm_rooms
		where community_id = ${communityId} and chatroom_id = ${chatroomId}`
	return row ?? null
}

/** True when either of the two blocked the other. */
export async function blockedBetween(
	db: Db,
	communityId: number,
	a: number,
	b: number,
): Promise<boolean> {
	const [row] = await db`select ${blockRule(db, a, b, communityId)} as blocked`
	return row?.blocked === true
}
