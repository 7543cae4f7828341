// What a room tells live scopes after commit: a seat taken or left (`chatroom:<id>`), and
// each participant's unread count of the room (`me`, `chat.unread`): ABSOLUTE, the
// `unread_messages` of the REST chat home and chatroom answers, so a missed event is
// mended by the next one. Muted participants get it too: a count, not a push.
import type { Db } from '../../lib/db'
import { liveScopes, publishLive, publishLiveMany } from '../../live'
import { unreadPage } from './unread-repo'

export function announceSeat(
	chatroomId: string,
	memberId: number,
	joined: boolean,
	method: string,
): Promise<string | null> {
	return publishLive(liveScopes.chatroom(chatroomId), {
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
export async function announceRoomUnread(
	db: Db,
	room: { communityId: number; chatroomId: string; except: number | null },
): Promise<void> {
	for (let afterUserId = 0; ; ) {
		const seats = await unreadPage(db, room.communityId, room.chatroomId, {
			afterUserId,
			limit: UNREAD_PAGE,
			except: room.except,
		})
		await publishLiveMany(
			seats.map((s) => ({
				scope: liveScopes.me(s.user_id),
				event: unreadEvent(room.chatroomId, s.unread_messages),
			})),
		)
		if (seats.length < UNREAD_PAGE) return
		afterUserId = (seats[seats.length - 1] as { user_id: number }).user_id
	}
}

/** One reader's count of the room, after they read it. */
export function announceOwnUnread(userId: number, chatroomId: string, count: number) {
	return publishLive(liveScopes.me(userId), unreadEvent(chatroomId, count))
}
