// The notification feed's read side (a sub-feature: it reads posts and comments, which
// themselves record activities through the parent folder): a page of the recipient's activity groups, newest
// first, with each entity (post through the feed engine's caches, comment, user), the
// actors and authors in `users`, and the posts' `topics` and `widgets`; the exact
// unread count; marking read.
import { sql } from '../../../lib/db'
import { notFound } from '../../../lib/errors'
import { isId } from '../../../lib/ids'
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
import { ACTION_BY_SHOWN, presentActivity } from '../present'
import { type ActivityRow, activityPage, markAllRead, markRead, unreadCount } from '../repo'

const idsOf = (rows: ActivityRow[], type: number) => [
	...new Set(rows.filter((r) => r.entity_type === type).map((r) => r.entity_id)),
]

/** Entities of a page: posts as the viewer sees them, comments, and user entities. */
async function loadEntities(session: Session, rows: ActivityRow[]) {
	const viewer = viewerOf(session)
	const [hydrated, comments, entityUsers] = await Promise.all([
		hydratePosts(viewer, idsOf(rows, EntityType.post), {
			visibilities: ['public', 'connections'],
			keepHidden: true,
		}),
		findCommentsByIds(sql, idsOf(rows, EntityType.comment)),
		findUsersByUuids(sql, session.communityId, idsOf(rows, EntityType.user)),
	])
	return {
		posts: new Map(hydrated.posts.map((p) => [p._id, p])),
		postUsers: hydrated.users,
		comments: new Map(comments.filter((c) => !c.is_deleted).map((c) => [c.id, c])),
		users: new Map(entityUsers.map((u) => [u.uuid, u])),
	}
}

export async function activityFeed(
	session: Session,
	page: number | undefined,
	pageSize: number | undefined,
	v1: boolean,
) {
	const p = paging(page, pageSize, 20)
	const { rows, total } = await activityPage(sql, session.userId, p.pageSize, p.offset)
	const entities = await loadEntities(session, rows)
	const people = new Set<number>(rows.flatMap((r) => r.actor_ids.slice(-ACTION_BY_SHOWN)))
	for (const c of entities.comments.values()) people.add(c.user_id)
	const users = await getUsers(session.communityId, [...people])
	const map: Record<string, ReturnType<typeof presentFeedUser>> = { ...entities.postUsers }
	for (const user of [...users.values(), ...entities.users.values()])
		map[user.uuid] = presentFeedUser(user)
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

export const unreadActivities = async (session: Session) => ({
	count: await unreadCount(sql, session.userId),
})

export async function markActivityRead(session: Session, activityId: string): Promise<void> {
	if (!isId(activityId) || !(await markRead(sql, session.userId, activityId)))
		throw notFound('Activity')
}

export async function markAllActivitiesRead(session: Session): Promise<void> {
	await markAllRead(sql, session.userId)
}
