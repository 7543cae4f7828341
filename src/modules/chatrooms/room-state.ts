// A room's state in Redis, so the hot read (the newest page of an open room) needs no
// Postgres query. Postgres stays the truth; these keys only let a reader skip it:
//  - `chatRoom`: what never changes about a room (community, secret, type), or
//    `deleted`. Readers fill it with SET NX; deleting a room overwrites it with the
//    marker, so a reader that loaded the room just before the delete cannot put it back.
//  - `chatVersion`: the room's version, raised by every conversation write in its
//    transaction (before commit, so a crash after it cannot leave a stale number: a reader that sees the new number before the rows
//    rebuilds its page from Postgres, which is merely slower) and never lowered (a
//    reader that loaded an older version, or a writer that finishes last, cannot
//    take it back).
//  - `chatReadMarks`: per member, the conversation a page read last moved their read
//    mark to. Marks only move forward, so "already at X" lets a reader skip the write.
// Redis failures are logged, never thrown: a missing key means "ask Postgres".
import { keys } from '../../lib/keys'
import { redis } from '../../lib/redis'
import { quietly } from '../../lib/redis-errors'
import type { ChatroomRow } from './repo'

const TTL_SECONDS = 300
const VERSION_TTL_SECONDS = 120
const MARKS_TTL_SECONDS = 86_400
const DELETED = 'deleted'

// Sets the version unless the stored one is already as high. The TTL is not renewed
// then: a number raised by a write that rolled back outlives it by VERSION_TTL at most.
const raiseScript = `
local current = tonumber(redis.call('GET', KEYS[1]))
if current and current >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`

redis.defineCommand('chatRaiseVersion', { numberOfKeys: 1, lua: raiseScript })
const commands = redis as unknown as {
	chatRaiseVersion(key: string, version: string, ttl: number): Promise<number>
}

/** The room's version is at least `version` (from the row the writer just updated). */
export const raiseRoomVersion = (chatroomId: string, version: string | number) =>
	quietly('chat room state: version', () =>
		commands.chatRaiseVersion(keys.chatVersion(chatroomId), String(version), VERSION_TTL_SECONDS),
	)

/** Called by readers that loaded the room from Postgres. */
export const rememberRoom = (room: ChatroomRow) =>
	quietly('chat room state: room', async () => {
		await Promise.all([
			redis.set(
				keys.chatRoom(room.id),
				`${room.community_id} ${room.is_secret ? 1 : 0} ${room.type}`,
				'EX',
				TTL_SECONDS,
				'NX',
			),
			commands.chatRaiseVersion(keys.chatVersion(room.id), room.version, VERSION_TTL_SECONDS),
		])
	})

/** After a room is deleted: readers go to Postgres (and get 404) from now on. */
export const forgetDeletedRoom = (chatroomId: string) =>
	quietly('chat room state: deleted', () =>
		redis.set(keys.chatRoom(chatroomId), DELETED, 'EX', TTL_SECONDS),
	)

export const rememberReadMark = (chatroomId: string, userId: number, conversationId: string) =>
	quietly('chat room state: read mark', async () => {
		const key = keys.chatReadMarks(chatroomId)
		await Promise.all([
			redis.hset(key, String(userId), conversationId),
			redis.expire(key, MARKS_TTL_SECONDS),
		])
	})

export interface RoomState {
	communityId: number
	isSecret: boolean
	type: number
	version: string
	/** where a page read last moved this member's read mark ('0': never) */
	readMark: string
}

/**
 * The room as Redis knows it, with the page entry stored for `pageKey`, in one round
 * trip; null when Redis does not know the room (or it is deleted: Postgres answers).
 */
export async function roomState(
	chatroomId: string,
	userId: number,
	pageKey: string,
): Promise<{ state: RoomState; entry: Buffer | null } | null> {
	const [room, version, mark, entry] = await Promise.all([
		redis.get(keys.chatRoom(chatroomId)),
		redis.get(keys.chatVersion(chatroomId)),
		redis.hget(keys.chatReadMarks(chatroomId), String(userId)),
		redis.getBuffer(pageKey),
	])
	if (!room || room === DELETED || !version) return null
	const [community, secret, type] = room.split(' ')
	return {
		state: {
			communityId: Number(community),
			isSecret: secret === '1',
			type: Number(type),
			version,
			readMark: mark ?? '0',
		},
		entry,
	}
}
