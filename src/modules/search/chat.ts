// Chat search (chat-js Search): rooms by title, messages by text, only in rooms the
// searcher may read (chatrooms/access.ts decides which), in the shapes the chat pages use.
import { sql } from '../../lib/db'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/session'
import { chatViewer, seeRoom, visibleSecretRooms } from '../chatrooms/access'
import { presentRooms } from '../chatrooms/service'
import { hydrate } from '../conversations/hydrate'
import { findConversations } from '../conversations/repo'
import { type ChatSearch, searchConversationIds, searchRooms } from './chat-repo'
import type { PageOf } from './service'

async function chatSearch(session: Session, search: string, followedOnly: boolean, query: PageOf) {
	const viewer = chatViewer(session)
	const { pageSize, offset } = paging(query.page, query.page_size)
	const q: ChatSearch = {
		communityId: viewer.communityId,
		searcherId: viewer.userId,
		search,
		secretRooms: await visibleSecretRooms(sql, viewer),
		followedOnly,
		limit: pageSize,
		offset,
	}
	return { viewer, q }
}

/** GET /chatroom/search: `{chatrooms}`, the best match first. */
export async function findChatrooms(
	session: Session,
	search: string,
	followedOnly: boolean,
	query: PageOf,
) {
	if (!search.trim()) return { chatrooms: [] }
	const { viewer, q } = await chatSearch(session, search, followedOnly, query)
	return { chatrooms: await presentRooms(viewer, await searchRooms(sql, q)) }
}

/** GET /conversation/search: `{conversations}`, newest first (one room, or every readable one). */
export async function findConversationsMatching(
	session: Session,
	search: string,
	chatroomId: string | undefined,
	followedOnly: boolean,
	query: PageOf,
) {
	if (!search.trim()) return { conversations: [] }
	const { viewer, q } = await chatSearch(session, search, followedOnly, query)
	// one named room: the room's own rule (404 for a secret room the searcher may not see)
	const room = chatroomId ? await seeRoom(sql, viewer, chatroomId) : null
	const ids = await searchConversationIds(sql, { ...q, chatroomId: room?.id ?? null })
	const byId = new Map(
		(await findConversations(sql, viewer.communityId, ids)).map((c) => [c.id, c]),
	)
	const rows = ids.flatMap((id) => byId.get(id) ?? [])
	return { conversations: (await hydrate(sql, viewer, rows)).conversations }
}
