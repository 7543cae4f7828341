// The chat home (chat-js getHomeFeed: GET /chatroom/sync; GET /chatroom/home) and explore
// (chat-js getExploreFeed: GET /community/feed), in the SDK's SyncChatroomResponse and
// GetExploreFeedResponse shapes. Which rooms a member may see is chatrooms/access.ts's rule.
import { sql } from '../../lib/db'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/session'
import { chatViewer, visibleSecretRooms } from '../chatrooms/access'
import { communityName } from '../chatrooms/repo'
import { presentRooms } from '../chatrooms/service'
import { hydrate } from '../conversations/hydrate'
import { findConversations } from '../conversations/repo'
import { exploreRooms, followedRooms } from './repo'

export interface HomeInput {
	page?: number
	page_size?: number
	chatroom_types: number[] | null
	min_timestamp: number | null
	max_timestamp: number | null
}

/** Timestamps below 10^12 are seconds (DESIGN section 3). */
const toMs = (value: number | null) => (value === null ? null : value < 1e12 ? value * 1000 : value)

/** The rooms the member follows, each with its last message in `conversation_meta`. */
export async function homeFeed(session: Session, input: HomeInput) {
	const viewer = chatViewer(session)
	const { pageSize, offset } = paging(input.page, input.page_size)
	const rooms = await followedRooms(sql, {
		communityId: viewer.communityId,
		userId: viewer.userId,
		types: input.chatroom_types,
		minUpdated: toMs(input.min_timestamp),
		maxUpdated: toMs(input.max_timestamp),
		limit: pageSize,
		offset,
	})
	const lastIds = rooms.flatMap((r) => (r.last_conversation_id ? [r.last_conversation_id] : []))
	const [chatrooms, last, name] = await Promise.all([
		presentRooms(viewer, rooms),
		findConversations(sql, viewer.communityId, lastIds),
		communityName(sql, viewer.communityId),
	])
	const { conversations, users } = await hydrate(sql, viewer, last)
	return {
		chatrooms_data: chatrooms,
		conversation_meta: Object.fromEntries(conversations.map((c) => [c.id, c])),
		user_meta: users,
		community_meta: { [viewer.communityId]: { id: viewer.communityId, name } },
		card_attachments_meta: {},
		conv_attachments_meta: {},
		widgets: {},
	}
}

/** Explore's page size (the SDK sends only the page). */
const EXPLORE_PAGE_SIZE = 10

/** Rooms the member may see, in the order asked, with whether they follow each. */
export async function exploreFeed(session: Session, orderType: number, page?: number) {
	const viewer = chatViewer(session)
	const { pageSize, offset } = paging(page, EXPLORE_PAGE_SIZE)
	const secret = await visibleSecretRooms(sql, viewer)
	const rooms = await exploreRooms(
		sql,
		{ communityId: viewer.communityId, userId: viewer.userId, secret },
		orderType,
		pageSize,
		offset,
	)
	return { chatrooms: await presentRooms(viewer, rooms), pinned_chatrooms_count: 0 }
}
