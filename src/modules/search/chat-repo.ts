// SQL of chat search (docs/search.md): room titles and headers, and messages, by their
// search vectors (migrations/0100), with what was typed read as words whose last one
// may be unfinished (plaza_prefix_query). The rooms a searcher may read come from the
// chatrooms' own rule (chatrooms/access.ts visibleSecretRooms): open rooms and the
// secret rooms it lists; a secret room outside it is never matched, nor counted.
import type postgres from 'postgres'
import type { Db } from '../../lib/db'
import { blockedBetween, reportedInChatBy } from '../../lib/sql-rules'
import { type ChatroomRow, readableRoom, roomColumns, type SecretRooms } from '../chatrooms/repo'

export interface ChatSearch {
	communityId: number
	searcherId: number
	search: string
	/** secret rooms the searcher may read ('all' for a CM) */
	secretRooms: SecretRooms
	/** only rooms the searcher is seated in */
	followedOnly: boolean
	limit: number
	offset: number
}

const readable = (db: Db, q: ChatSearch, room: string) =>
	readableRoom(db, room, q.secretRooms, q.searcherId, q.communityId)

const followed = (db: Db, q: ChatSearch, roomId: postgres.Fragment) =>
	q.followedOnly
		? db`and exists (select 1 from chatroom_participants sp
			where sp.community_id = ${q.communityId} and sp.chatroom_id = ${roomId}
				and sp.user_id = ${q.searcherId})`
		: db``

/** Rooms whose title or header match, best match first. */
export function searchRooms(db: Db, q: ChatSearch): Promise<ChatroomRow[]> {
	return db<ChatroomRow[]>`
		select ${roomColumns(db)} from chatrooms
		where community_id = ${q.communityId} and not is_deleted
			and search @@ plaza_prefix_query(${q.search})
			and ${readable(db, q, 'chatrooms')} ${followed(db, q, db`chatrooms.id`)}
		order by ts_rank_cd(search, plaza_prefix_query(${q.search})) desc, id desc
		limit ${q.limit} offset ${q.offset}`
}

/**
 * Ids of messages (texts and polls; not join or leave lines, nor deleted ones) that
 * match, newest first, in the rooms given or every room the searcher may read; never
 * by someone blocked either way.
 */
export async function searchConversationIds(
	db: Db,
	q: ChatSearch & { chatroomId: string | null },
): Promise<string[]> {
	const rooms = q.chatroomId === null ? db`` : db`and c.chatroom_id = ${q.chatroomId}`
	const rows = await db<{ id: string }[]>`
		select c.id from conversations c
		join chatrooms r on r.community_id = c.community_id and r.id = c.chatroom_id
		where c.community_id = ${q.communityId} and c.search @@ plaza_prefix_query(${q.search})
			and c.state in (0, 10) and c.deleted_by is null and not c.held ${rooms}
			and not r.is_deleted and ${readable(db, q, 'r')} ${followed(db, q, db`c.chatroom_id`)}
			and not ${blockedBetween(db, q.searcherId, db`c.user_id`, db`c.community_id`)}
			and not ${reportedInChatBy(db, q.searcherId, 'c')}
		order by c.id desc limit ${q.limit} offset ${q.offset}`
	return rows.map((r) => r.id)
}
