// SQL of the chat home (the rooms a member follows) and explore (the rooms they may see).
import type { Db } from '../../lib/db'
import { type ChatroomRow, readableRoom, roomColumns, type SecretRooms } from '../chatrooms/repo'

export interface HomeQuery {
	communityId: number
	userId: number
	/** room types asked for (null: every type) */
	types: number[] | null
	/** rooms changed in [min, max] (epoch ms; null: unbounded) */
	minUpdated: number | null
	maxUpdated: number | null
	limit: number
	offset: number
}

/** Rooms the member is seated in, the latest message first (rooms without one last). */
export function followedRooms(db: Db, q: HomeQuery): Promise<ChatroomRow[]> {
	return db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where community_id = ${q.communityId} and not is_deleted
			and exists (select 1 from chatroom_participants p
				where p.community_id = ${q.communityId} and p.chatroom_id = chatrooms.id
					and p.user_id = ${q.userId})
			${q.types === null ? db`` : db`and type = any(${q.types}::smallint[])`}
			${q.minUpdated === null ? db`` : db`and updated_at >= ${q.minUpdated}`}
			${q.maxUpdated === null ? db`` : db`and updated_at <= ${q.maxUpdated}`}
		order by last_conversation_id desc nulls last, id desc
		limit ${q.limit} offset ${q.offset}`
}

/** Explore's orders (chat-js getExploreFeed `order_type`). */
export const exploreOrders = {
	newest: 0,
	mostActive: 1,
	mostMessages: 2,
	mostParticipants: 3,
} as const

/** Rooms of the community the member may see: open rooms plus the secret ones given. */
export function exploreRooms(
	db: Db,
	viewer: { communityId: number; userId: number; secret: SecretRooms },
	orderType: number,
	limit: number,
	offset: number,
): Promise<ChatroomRow[]> {
	const visible = readableRoom(db, 'chatrooms', viewer.secret, viewer.userId, viewer.communityId)
	const order =
		orderType === exploreOrders.mostActive
			? db`last_conversation_id desc nulls last,`
			: orderType === exploreOrders.mostMessages
				? db`messages_count desc,`
				: orderType === exploreOrders.mostParticipants
					? db`participants_count desc,`
					: db``
	return db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where community_id = ${viewer.communityId} and not is_deleted and ${visible}
		order by ${order} id desc limit ${limit} offset ${offset}`
}
