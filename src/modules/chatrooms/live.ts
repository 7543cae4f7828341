// What a room tells live scopes after commit: a seat taken or left (`chatroom:<id>`), and
// each participant's unread count of the room (`me`, `chat.unread`): ABSOLUTE, the
// `unread_messages` of the REST chat home and chatroom answers, so a missed event is
// mended by the next one. Muted participants get it too: a count, not a push.
import { type Db, sql } from '../../lib/db'
import { log } from '../../lib/log'
import { throttlePerKey } from '../../lib/throttle'
import { liveScopes, publishLive, publishLiveMany } from '../../live'
import { unreadPage } from './unread-repo'

export function announceSeat(
	communityId: number,
	chatroomId: string,
	memberId: number,
	joined: boolean,
	method: string,
): Promise<string | null> {
	return publishLive(liveScopes.chatroom(communityId, chatroomId), {
		type: joined ? 'member.joined' : 'member.left',
		data: { chatroom_id: chatroomId, member_id: memberId, method },
	})
}

/** Seats read, and events sent, per round trip. */
export const UNREAD_PAGE = 1000

const unreadEvent = (chatroomId: string, count: number) => ({
	type: 'chat.unread',
	data: { chatroom_id: chatroomId, unread_messages: count },
})

/**
 * Every seat of the room but `except` (the author, when all the messages announced were
 * theirs: their own never count) gets its count now: a page of 1,000 seats is one
 * statement and one Redis round trip. Called by the chat notice worker after its commit,
 * once per room of a batch however many of its messages the batch held.
 */
export async function announceRoomUnread(db: Db, room: UnreadRoom): Promise<void> {
	for (let afterUserId = 0; ; ) {
		const seats = await unreadPage(db, room.communityId, room.chatroomId, {
			afterUserId,
			limit: UNREAD_PAGE,
			except: room.except,
		})
		await publishLiveMany(
			seats.map((s) => ({
				scope: liveScopes.me(room.communityId, s.user_id),
				event: unreadEvent(room.chatroomId, s.unread_messages),
			})),
		)
		if (seats.length < UNREAD_PAGE) return
		afterUserId = (seats[seats.length - 1] as { user_id: number }).user_id
	}
}

export interface UnreadRoom {
	communityId: number
	chatroomId: string
	/** the author left out, or null when several wrote */
	except: number | null
}

/** At most one announcement of a room per this many ms (per process). */
export const UNREAD_WINDOW_MS = 1000

/**
 * announceRoomUnread, at most once a second per room: the first at once, then what came
 * meanwhile once, at the end of the window (its counts read then, the latest). A busy
 * room's members thus get its count once a second however fast it is written: what the
 * announcements cost grows with the room's members, never with its messages times its
 * members. Failures are logged (the counts are absolute: the next one mends them).
 */
const throttledUnread = throttlePerKey<UnreadRoom>({
	windowMs: UNREAD_WINDOW_MS,
	run: (room) =>
		announceRoomUnread(sql, room).catch((error) =>
			log.warn({ err: (error as Error).message, ...room }, 'chat unread not announced'),
		),
	// The author is left out only while every message of the window was theirs.
	merge: (owed, next) => ({ ...next, except: owed.except === next.except ? next.except : null }),
})

export const announceRoomUnreadSoon = (room: UnreadRoom): Promise<void> =>
	throttledUnread(`${room.communityId}:${room.chatroomId}`, room)

/** One reader's count of the room, after they read it. */
export function announceOwnUnread(
	communityId: number,
	userId: number,
	chatroomId: string,
	count: number,
) {
	return publishLive(liveScopes.me(communityId, userId), unreadEvent(chatroomId, count))
}
