// The unread count of each seat of a room, a page at a time, counted as REST counts it
// (present.ts unreadOf: the room's counted messages after the seat's read mark, less the
// seat's own): what the live `chat.unread` event carries to every participant.
import type { Db } from '../../lib/db'

export interface SeatUnread {
	user_id: number
	unread_messages: number
}

/**
 * Up to `limit` seats of the room after `afterUserId`, in user order, `except` (an
 * author) left out; one index range of the participants' primary key and the room row.
 */
export function unreadPage(
	db: Db,
	communityId: number,
	chatroomId: string,
	page: { afterUserId: number; limit: number; except: number | null },
) {
	return db<SeatUnread[]>`
		select p.user_id::float8 as user_id,
			greatest(0, r.messages_count - p.read_count - p.own_unread)::float8 as unread_messages
		from chatroom_participants p
		join chatrooms r on r.id = p.chatroom_id and r.community_id = p.community_id
		where p.community_id = ${communityId} and p.chatroom_id = ${chatroomId}
			and p.user_id > ${page.afterUserId} and p.user_id <> ${page.except ?? 0}
			and not r.is_deleted
		order by p.user_id limit ${page.limit}`
}
