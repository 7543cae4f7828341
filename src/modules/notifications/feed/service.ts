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
	type EmbeddedPost,
	getUsers,
	presentFeedUser,
	renderPostsById,
	viewerBlocks,
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

/** An entity as the page embeds it: its JSON and its owner's uuid. */
interface Entity {
	json: Buffer | string
	ownerUuid: string
}

/**
 * Entities of a page: posts as the viewer sees them, as the bytes the feed engine
 * caches (with their authors' bytes and topic ids), comments (Postgres, only when the
 * page has any), and the users the page names (actors, comment authors, user entities).
 */
async function loadEntities(session: Session, rows: ActivityRow[], blocked: Set<number>) {
	const postIds = idsOf(rows, EntityType.post)
	const commentIds = idsOf(rows, EntityType.comment)
	// The viewer comes along: most posts of a notification feed are the viewer's own.
	const userIds = new Set<number>([session.userId, ...rows.flatMap((r) => r.actor_ids)])
	const [posts, comments, users] = await Promise.all([
		postIds.length > 0
			? renderPostsById(viewerOf(session), postIds, blocked, {
					visibilities: ['public', 'connections'],
					keepHidden: true,
				})
			: new Map<string, EmbeddedPost>(),
		commentIds.length > 0 ? findCommentsByIds(sql, commentIds) : [],
		getUsers(session.communityId, [...userIds]),
	])
	const liveComments = comments.filter((c) => !c.is_deleted)
	const others = [
		...new Set([
			...[...posts.values()].map((p) => p.authorId),
			...liveComments.map((c) => c.user_id),
		]),
	].filter((id) => !users.has(id))
	if (others.length > 0)
		for (const [id, user] of await getUsers(session.communityId, others)) users.set(id, user)
	const people = new Map<string, CachedUser>()
	for (const user of users.values()) people.set(user.uuid, user)
	// A user entity (100, 101) is its actor, already loaded; others are looked up.
	const strangers = idsOf(rows, EntityType.user).filter((uuid) => !people.has(uuid))
	if (strangers.length > 0)
		for (const user of await findUsersByUuids(sql, session.communityId, strangers))
			people.set(user.uuid, user)
	const entities = new Map<string, Entity>()
	for (const [id, post] of posts) entities.set(id, { json: post.json, ownerUuid: post.authorUuid })
	for (const c of liveComments)
		entities.set(c.id, { json: JSON.stringify(presentComment(c, null)), ownerUuid: c.uuid })
	for (const user of people.values())
		entities.set(user.uuid, { json: JSON.stringify(presentFeedUser(user)), ownerUuid: user.uuid })
	// `users` lists who the page names: actors, authors of its posts and comments, user entities.
	const named = new Set<string>()
	for (const row of rows)
		for (const id of row.actor_ids) {
			const actor = users.get(id)
			if (actor) named.add(actor.uuid)
		}
	for (const post of posts.values()) named.add(post.authorUuid)
	for (const c of liveComments) named.add(c.uuid)
	for (const uuid of idsOf(rows, EntityType.user)) named.add(uuid)
	return { entities, posts: [...posts.values()], users, people, named }
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

/**
 * A page of the notification feed as the `data` JSON, `{activities, users, topics,
 * widgets, total_count}`: rows from the Redis copy and the viewer's blocks in one round
 * trip, then posts (cached bytes, spliced, not re-serialized) with actors, then their
 * authors; Postgres only for comments, topics and widgets when the page has any.
 */
export async function activityFeedJson(
	session: Session,
	page: number | undefined,
	pageSize: number | undefined,
	v1: boolean,
): Promise<Buffer> {
	const p = paging(page, pageSize, 20)
	const [{ rows, total }, blocked] = await Promise.all([
		pageRows(session.userId, p.offset, p.pageSize),
		viewerBlocks(session.userId),
	])
	const loaded = await loadEntities(session, rows, blocked)
	const out: (Buffer | string)[] = ['{"activities":[']
	let first = true
	for (const row of rows) {
		const entity = loaded.entities.get(row.entity_id)
		if (!entity) continue
		const activity = presentActivity(row, {
			users: loaded.users,
			recipientUuid: session.uuid,
			entityOwnerUuid: entity.ownerUuid,
			v1,
		})
		// The entity goes in as the bytes it already is.
		out.push(first ? '' : ',', JSON.stringify(activity).slice(0, -1), ',"activity_entity_data":')
		out.push(entity.json, '}')
		first = false
	}
	out.push('],"users":{')
	first = true
	for (const uuid of loaded.named) {
		const user = loaded.people.get(uuid)
		if (!user) continue
		out.push(`${first ? '' : ','}${JSON.stringify(uuid)}:${JSON.stringify(presentFeedUser(user))}`)
		first = false
	}
	const { topics, widgets } = await topicsAndWidgets(session.communityId, loaded.posts)
	out.push(
		`},"topics":${JSON.stringify(topics)},"widgets":${JSON.stringify(widgets)},"total_count":${total}}`,
	)
	return concat(out)
}

/** Bytes of the parts; runs of strings are encoded together (a Buffer per piece costs more). */
function concat(parts: (Buffer | string)[]): Buffer {
	const buffers: Buffer[] = []
	let text = ''
	for (const part of parts) {
		if (typeof part === 'string') text += part
		else {
			if (text !== '') buffers.push(Buffer.from(text))
			text = ''
			buffers.push(part)
		}
	}
	if (text !== '') buffers.push(Buffer.from(text))
	return Buffer.concat(buffers)
}

async function topicsAndWidgets(communityId: number, posts: EmbeddedPost[]) {
	const topicIds = [...new Set(posts.flatMap((p) => p.topicIds))]
	const widgetIds = [...new Set(posts.flatMap((p) => p.widgetIds))]
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
