// Search of posts and members (docs/search.md). Post results come back in the feed's
// post shape through the feed engine's hydration, so a post found looks like a post in
// a feed; the SQL (repo.ts) already applied every visibility rule.
import { sql } from '../../lib/db'
import { paging } from '../../lib/paging'
import { hydratePosts } from '../../timelines'
import { type Session, viewerOf } from '../auth/session'
import { chatViewer, seeRoom } from '../chatrooms/access'
import { presentTopic } from '../topics/present'
import { findTopicsByIds } from '../topics/repo'
import { presentMember, presentUser } from '../users/present'
import { presentWidget } from '../widgets/present'
import { findWidgetsByIds } from '../widgets/repo'
import { searchMembers } from './members-repo'
import { searchPostIds } from './repo'
import { walksByTime } from './word-frequency'

export interface PageOf {
	page?: number
	page_size?: number
}

/** GET /search/post: `{posts, users, topics, widgets}`, best match first. */
export async function searchPosts(session: Session, search: string, query: PageOf) {
	const viewer = viewerOf(session)
	const { pageSize, offset } = paging(query.page, query.page_size, 20)
	const walk = await walksByTime(sql, search)
	const ids = await searchPostIds(
		sql,
		{ viewer, search, limit: pageSize, offset, now: Date.now() },
		walk,
	)
	// the SQL filtered by the visibility rule: the hydration keeps every kind it let through
	const { posts, users } = await hydratePosts(viewer, ids, {
		visibilities: ['public', 'connections', 'private'],
	})
	const [topics, widgets] = await Promise.all([
		findTopicsByIds(sql, viewer.communityId, [...new Set(posts.flatMap((p) => p.topics))]),
		findWidgetsByIds(sql, viewer.communityId, [...new Set(posts.flatMap((p) => p.widget_ids))]),
	])
	return {
		posts,
		users,
		topics: Object.fromEntries(topics.map((t) => [t.id, presentTopic(t)])),
		widgets: Object.fromEntries(widgets.map((w) => [w.id, presentWidget(w)])),
	}
}

/** GET /community/member/search (chat-js searchMembers): chat member objects. */
export async function findMembers(session: Session, search: string | undefined, query: PageOf) {
	const { pageSize, offset } = paging(query.page, query.page_size)
	const rows = await searchMembers(sql, {
		communityId: session.communityId,
		searcherId: session.userId,
		search: search ?? '',
		connectionsFirst: false,
		limit: pageSize,
		offset,
	})
	return { members: rows.map(presentMember) }
}

/**
 * GET /community/tag, the mention list: connections and CMs first; in a secret room,
 * only its members. feed-js reads
 * `members` (its TaggingUser), chat-js `community_members` (its Member): both are sent.
 */
export async function taggingList(
	session: Session,
	search: string | undefined,
	chatroomId: string | undefined,
	query: PageOf,
) {
	const { pageSize, offset } = paging(query.page, query.page_size)
	// in a secret room (chat-js sends its id) one mentions its members: 404 for a room
	// the searcher may not see, as everywhere
	const room = chatroomId ? await seeRoom(sql, chatViewer(session), chatroomId) : null
	const rows = await searchMembers(sql, {
		communityId: session.communityId,
		searcherId: session.userId,
		search: search ?? '',
		connectionsFirst: true,
		seatedIn: room?.is_secret ? room.id : undefined,
		limit: pageSize,
		offset,
	})
	return {
		members: rows.map(presentUser),
		community_members: rows.map(presentMember),
		group_tags: [],
		widgets: {},
	}
}
