// The notification feed's read side (a sub-feature: it reads posts and comments, which
// themselves record activities through the parent folder): a page of the recipient's activity groups, newest
// first, with each entity (post through the feed engine's caches, comment, user), the
// actors and authors in `users`, and the posts' `topics` and `widgets`; the exact
// unread count; marking read.
import { sql } from '../../../lib/db'
import { notFound } from '../../../lib/errors'
import { isId } from '../../../lib/ids'
import { log } from '../../../lib/log'
import { paging } from '../../../lib/paging'
import {
	type CachedUser,
	type FeedPost,
	getUsers,
	hydratePosts,
	presentFeedUser,
} from '../../../timelines'
import { type Session, viewerOf } from '../../auth/session'
import { presentComment } from '../../posts/comments/present'
import { findCommentsByIds } from '../../posts/comments/repo'
import { presentTopic } from '../../topics/present'
import { findTopicsByIds } from '../../topics/repo'
import { findUsersByUuids } from '../../users/repo'
import { presentWidget } from '../../widgets/present'
import { findWidgetsByIds } from '../../widgets/repo'
import { EntityType } from '../model'
import { presentActivity } from '../present'
import {
	type ActivityRow,
	activityPage,
	markAllRead,
	markRead,
	type ReadMark,
	unreadCount,
} from '../repo'
import { applyChanges, type Change, readPage, readUnread, rebuild } from '../store'

const idsOf = (rows: ActivityRow[], type: number) => [
	...new Set(rows.filter((r) => r.entity_type === type).map((r) => r.entity_id)),
]

/** Entities of a page: posts as the viewer sees them (feed engine caches) and comments. */
async function loadEntities(session: Session, rows: ActivityRow[]) {
	const postIds = idsOf(rows, EntityType.post)
	const commentIds = idsOf(rows, EntityType.comment)
	const [hydrated, comments] = await Promise.all([
		postIds.length > 0
			? hydratePosts(viewerOf(session), postIds, {
					visibilities: ['public', 'connections'],
					keepHidden: true,
				})
			: { posts: [], users: {} },
		commentIds.length > 0 ? findCommentsByIds(sql, commentIds) : [],
	])
	return {
		posts: new Map(hydrated.posts.map((p) => [p._id, p])),
		postUsers: hydrated.users,
		comments: new Map(comments.filter((c) => !c.is_deleted).map((c) => [c.id, c])),
		users: new Map<string, CachedUser>(),
	}
}

/**
 * The page's rows and the total: from the user's Redis copy (one script call), rebuilt
 * from Postgres when missing; from Postgres when the page lies past a capped copy, or
 * when Redis fails (the copy is derived, the feed must still answer).
 */
async function pageRows(userId: number, offset: number, limit: number) {
	try {
		let cached = await readPage(userId, offset, limit)
		if (!cached && (await rebuild(userId))) cached = await readPage(userId, offset, limit)
		if (cached && (cached.complete || offset + limit <= cached.cached)) {
			const total = cached.complete ? cached.cached : (await activityPage(sql, userId, 0, 0)).total
			return { rows: cached.rows, total }
		}
	} catch (error) {
		log.warn({ err: error, userId }, 'activity copy unreadable; reading Postgres')
	}
	return activityPage(sql, userId, limit, offset)
}

export async function activityFeed(
	session: Session,
	page: number | undefined,
	pageSize: number | undefined,
	v1: boolean,
) {
	const p = paging(page, pageSize, 20)
	const { rows, total } = await pageRows(session.userId, p.offset, p.pageSize)
	const people = new Set<number>(rows.flatMap((r) => r.actor_ids))
	const [entities, users] = await Promise.all([
		loadEntities(session, rows),
		getUsers(session.communityId, [...people]),
	])
	const commentAuthors = [...entities.comments.values()]
		.map((c) => c.user_id)
		.filter((id) => !users.has(id))
	if (commentAuthors.length > 0)
		for (const [id, user] of await getUsers(session.communityId, commentAuthors))
			users.set(id, user)
	// A user entity (100, 101) is its actor, already loaded; others are looked up.
	for (const user of users.values()) entities.users.set(user.uuid, user)
	const missing = idsOf(rows, EntityType.user).filter((uuid) => !entities.users.has(uuid))
	if (missing.length > 0)
		for (const user of await findUsersByUuids(sql, session.communityId, missing))
			entities.users.set(user.uuid, user)
	const map: Record<string, ReturnType<typeof presentFeedUser>> = { ...entities.postUsers }
	for (const user of entities.users.values()) map[user.uuid] = presentFeedUser(user)
	const activities = rows.flatMap((row) => {
		const entity = entityOf(row, entities)
		if (!entity) return []
		return [
			presentActivity(row, {
				users,
				recipientUuid: session.uuid,
				entityData: entity.data,
				entityOwnerUuid: entity.ownerUuid,
				v1,
			}),
		]
	})
	const posts = [...entities.posts.values()]
	return {
		activities,
		users: map,
		...(await topicsAndWidgets(session.communityId, posts)),
		total_count: total,
	}
}

function entityOf(
	row: ActivityRow,
	e: Awaited<ReturnType<typeof loadEntities>>,
): { data: unknown; ownerUuid: string } | null {
	if (row.entity_type === EntityType.post) {
		const post = e.posts.get(row.entity_id)
		return post ? { data: post, ownerUuid: post.user_id } : null
	}
	if (row.entity_type === EntityType.comment) {
		const comment = e.comments.get(row.entity_id)
		return comment ? { data: presentComment(comment, null), ownerUuid: comment.uuid } : null
	}
	const user: CachedUser | undefined = e.users.get(row.entity_id)
	return user ? { data: presentFeedUser(user), ownerUuid: user.uuid } : null
}

async function topicsAndWidgets(communityId: number, posts: FeedPost[]) {
	const topicIds = [...new Set(posts.flatMap((p) => p.topics))]
	const widgetIds = [...new Set(posts.flatMap((p) => p.widget_ids))]
	const [topics, widgets] = await Promise.all([
		topicIds.length > 0 ? findTopicsByIds(sql, communityId, topicIds) : [],
		widgetIds.length > 0 ? findWidgetsByIds(sql, communityId, widgetIds) : [],
	])
	return {
		topics: Object.fromEntries(topics.map((t) => [t.id, presentTopic(t)])),
		widgets: Object.fromEntries(widgets.map((w) => [w.id, presentWidget(w)])),
	}
}

/** The exact number of unread groups: SCARD of the copy's unread set, Postgres without one. */
export async function unreadActivities(session: Session) {
	try {
		let count = await readUnread(session.userId)
		if (count === null && (await rebuild(session.userId))) count = await readUnread(session.userId)
		if (count !== null) return { count }
	} catch (error) {
		log.warn({ err: error, userId: session.userId }, 'activity copy unreadable; reading Postgres')
	}
	return { count: await unreadCount(sql, session.userId) }
}

export async function markActivityRead(session: Session, activityId: string): Promise<void> {
	const marked = isId(activityId) ? await markRead(sql, session.userId, activityId) : []
	if (marked.length === 0) throw notFound('Activity')
	await applyChanges(marked.map(readChange))
}

export async function markAllActivitiesRead(session: Session): Promise<void> {
	await applyChanges((await markAllRead(sql, session.userId)).map(readChange))
}

const readChange = (m: ReadMark): Change => ({
	userId: m.recipient_id,
	op: 'read',
	id: m.id,
	version: m.version,
})
