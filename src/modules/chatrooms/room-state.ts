// A room's state in Redis, so the hot read (the newest page of an open room) needs no
// Postgres query. Postgres stays the truth; these keys only let a reader skip it:
//  - `chatRoom`: what never changes about a room (community, secret, type), or
//    `deleted`. Readers fill it with SET NX; deleting a room overwrites it with the
//    marker, so a reader that loaded the room just before the delete cannot put it back.
//  - `chatVersion`: the room's version, never lowered (a reader that loaded an older
//    version, or a writer that finishes last, cannot take it back). Edits, deletes,
//    reactions and the joined/left lines raise it in their transaction (before commit, so
//    a crash after it cannot leave a stale number: a reader that sees the new number
//    before the rows rebuilds its page from Postgres, which is merely slower). New
//    messages raise it after their commit, outside the room's turn, and announce
//    themselves first instead:
//  - `chatWriting`: how many new messages of the room are being written. A writer counts
//    itself in before its transaction and out after the commit's version raise (or its
//    failure); while the count is above 0, readers take the full way. So a reader that
//    sees neither the count nor the new version read both before the commit (its page,
//    which it also read after them, can only be older if it was labelled older). A crash
//    leaves the count up, which only sends readers to Postgres until it expires.
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
// Twice a page's life (conversations/newest.ts: 60 s): once a crashed writer's count
// expires, every page stored before its commit has expired too (a transaction lasting
// under a minute), and pages stored since are labelled with its version or later.
const WRITING_TTL_SECONDS = 120

// Sets the version unless the stored one is already as high. The TTL is not renewed
// then: a number raised by a write that rolled back outlives it by VERSION_TTL at most.
const raiseScript = `
local current = tonumber(redis.call('GET', KEYS[1]))
if current and current >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`

// Counts new messages of a room in (ARGV[1] > 0) or out (< 0); out, it first raises the
// version (KEYS[2]) to ARGV[3] as raiseScript does, when given.
const writingScript = `
if ARGV[3] ~= '' then
	local current = tonumber(redis.call('GET', KEYS[2]))
	if not current or current < tonumber(ARGV[3]) then
		redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
	end
end
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n <= 0 then redis.call('DEL', KEYS[1]) else redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return n`

redis.defineCommand('chatRaiseVersion', { numberOfKeys: 1, lua: raiseScript })
redis.defineCommand('chatWriting', { numberOfKeys: 2, lua: writingScript })
const commands = redis as unknown as {
	chatRaiseVersion(key: string, version: string, ttl: number): Promise<number>
	chatWriting(
		writingKey: string,
		versionKey: string,
		by: number,
		ttl: number,
		version: string,
		versionTtl: number,
	): Promise<number>
}
const writing = (chatroomId: string, by: number, version = '') =>
	commands.chatWriting(
		keys.chatWriting(chatroomId),
		keys.chatVersion(chatroomId),
		by,
		WRITING_TTL_SECONDS,
		version,
		VERSION_TTL_SECONDS,
	)

/** The room's version is at least `version` (from the row the writer just updated). */
export const raiseRoomVersion = (chatroomId: string, version: string | number) =>
	quietly('chat room state: version', () =>
		commands.chatRaiseVersion(keys.chatVersion(chatroomId), String(version), VERSION_TTL_SECONDS),
	)

/**
 * A new message of the room is about to be written: readers take the full way until
 * writtenIn counts it out. False when Redis failed (then there is nothing to count out).
 */
export const writingIn = (chatroomId: string) =>
	quietly('chat room state: writing', () => writing(chatroomId, 1))

/**
 * `count` messages of writingIn are over: committed, with the room at `version` (raised
 * first, in the same script), or failed (no version).
 */
export const writtenIn = (chatroomId: string, count: number, version?: string) =>
	quietly('chat room state: writing', () => writing(chatroomId, -count, version))

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
	/** new messages are being written (chatWriting above 0): only Postgres knows the page */
	writing: boolean
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
	// In this order, which Redis keeps (one connection): the count before the version.
	const [room, writing, version, mark, entry] = await Promise.all([
		redis.get(keys.chatRoom(chatroomId)),
		redis.get(keys.chatWriting(chatroomId)),
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
			writing: Number(writing ?? 0) > 0,
		},
		entry,
	}
}
