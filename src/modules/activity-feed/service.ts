// The notification feed's read side (a module above notifications/ and posts/: it reads
// posts and comments, whose writers record activities through notifications/): a page of the recipient's activity groups, newest
// first, with each entity (post through the feed engine's caches, comment, user), the
// actors and authors in `users`, and the posts' `topics` and `widgets`; the exact
// unread count; marking read.
import { sql } from '../../lib/db'
import { notFound } from '../../lib/errors'
import { isId } from '../../lib/ids'
import { log } from '../../lib/log'
import { paging, pagingFromRaw } from '../../lib/paging'
import {
	embedPosts,
	type FeedUser,
	FlagPageWriter,
	type FlagsHole,
	type FlagTemplate,
	feedVersion,
	fillFlags,
	flagBits,
	presentFeedUser,
	Renderings,
	type ViewerFlags,
	viewerBlocks,
	viewerFlags,
	viewsUnderVersion,
} from '../../timelines'
import { keepEarly, takeEarly } from '../auth/early'
import { type Caller, type Session, viewerOf } from '../auth/session'
import { announceBadge } from '../notifications/live'
import { EntityType } from '../notifications/model'
import {
	activityHead,
	activityRecord,
	type PageActivity,
	parseRecord,
} from '../notifications/present'
import {
	activityPage,
	markAllRead,
	markRead,
	type ReadMark,
	unreadCount,
} from '../notifications/repo'
import { applyChanges, type Change, readPage, readUnread, rebuild } from '../notifications/store'
import { presentComment } from '../posts/comments/present'
import { findCommentsByIds } from '../posts/comments/repo'
import { presentTopic } from '../topics/present'
import { findTopicsByIds } from '../topics/repo'
import { findUsersByUuids } from '../users/repo'
import { presentWidget } from '../widgets/present'
import { findWidgetsByIds } from '../widgets/repo'
import {
	currentKeptPage,
	type KeptActivityPage,
	keepActivityPage,
	keptPageKey,
	type WarmPage,
} from './kept-page'

const idsOf = (activities: PageActivity[], type: number) => [
	...new Set(activities.filter((a) => a.entityType === type).map((a) => a.entityId)),
]

/** JSON as it is spliced: cached bytes, a string made here, a post's open flags, or pieces in order. */
type Json = Buffer | string | FlagsHole | Json[]

function splice(out: FlagPageWriter, json: Json) {
	if (typeof json === 'string') out.str(json)
	else if (Buffer.isBuffer(json)) out.buf(json)
	else if (Array.isArray(json)) for (const piece of json) splice(out, piece)
	else out.flags(json.flagsOf)
}

/** An entity as the page embeds it: its JSON and its owner's uuid. */
interface Entity {
	json: Json
	ownerUuid: string
}

/** A user the page names: the feed form's bytes, and what the activity text needs. */
interface Person {
	json: Json
	user: Pick<FeedUser, 'uuid' | 'name'>
}

/** The page's activities and total, and the viewer's sets when the copy's script read them. */
interface PageRows {
	activities: PageActivity[]
	total: number
	/** the copy's page version the rows were read under; null when not read from the copy */
	version: string | null
	blocked: Set<number> | null
	flags: ViewerFlags | null
}

/** People of a page by id: the feed form's bytes and the uuid and name read from them. */
function addPeople(into: Map<number, Person>, users: Map<number, Buffer>) {
	for (const [id, json] of users)
		into.set(id, { json, user: JSON.parse(json.toString()) as FeedUser })
}

/**
 * Entities of a page: posts as the bytes the feed engine caches, with the viewer's
 * flags and blocks the copy's script read (or read now), the users the page names
 * (actors and the viewer, who usually wrote the posts), comments (Postgres, only when
 * the page has any); posts and users through this process's kept views while the
 * community's feed `version` (read with the copy) stands, else in one round trip.
 * Authors not among them come after.
 */
async function loadEntities(session: Session, page: PageRows, version: string) {
	const { communityId, userId } = session
	const postIds = idsOf(page.activities, EntityType.post)
	const commentIds = idsOf(page.activities, EntityType.comment)
	const actors = new Set([userId, ...page.activities.flatMap((a) => a.actorIds)])
	const [views, comments, blocked, flags] = await Promise.all([
		viewsUnderVersion(communityId, version, postIds, [...actors]),
		commentIds.length > 0 ? findCommentsByIds(sql, communityId, commentIds) : [],
		page.blocked ?? viewerBlocks(session),
		page.flags ?? viewerFlags(session, postIds),
	])
	const people = new Map<number, Person>()
	addPeople(people, views.users)
	const posts = embedPosts(viewerOf(session), postIds, views.posts, blocked, {
		visibilities: ['public', 'connections'],
		keepHidden: true,
	})
	const liveComments = comments.filter((c) => !c.is_deleted)
	const authors = [
		...new Set([
			...[...posts.values()].map((p) => p.authorId),
			...liveComments.map((c) => c.user_id),
		]),
	].filter((id) => !people.has(id))
	if (authors.length > 0)
		addPeople(people, (await viewsUnderVersion(communityId, version, [], authors)).users)
	const byUuid = new Map<string, Person>()
	for (const person of people.values()) byUuid.set(person.user.uuid, person)
	// A user entity (100, 101) is its actor, already loaded; others are looked up.
	const userIds = idsOf(page.activities, EntityType.user)
	const strangers = userIds.filter((uuid) => !byUuid.has(uuid))
	if (strangers.length > 0)
		for (const user of await findUsersByUuids(sql, communityId, strangers))
			byUuid.set(user.uuid, { json: JSON.stringify(presentFeedUser(user)), user })
	const entities = new Map<string, Entity>()
	for (const [id, post] of posts) entities.set(id, { json: post.json, ownerUuid: post.authorUuid })
	for (const c of liveComments)
		entities.set(c.id, { json: JSON.stringify(presentComment(c, null)), ownerUuid: c.uuid })
	for (const uuid of userIds) {
		const person = byUuid.get(uuid)
		if (person) entities.set(uuid, { json: person.json, ownerUuid: uuid })
	}
	// `users` lists who the page names: actors, authors of its posts and comments, user entities.
	const named = new Set<string>()
	for (const a of page.activities)
		for (const id of a.actorIds) {
			const actor = people.get(id)
			if (actor) named.add(actor.user.uuid)
		}
	for (const post of posts.values()) named.add(post.authorUuid)
	for (const c of liveComments) named.add(c.uuid)
	for (const uuid of userIds) named.add(uuid)
	return { entities, posts: [...posts.values()], people, byUuid, named, blocked, flags }
}

/**
 * The page's activities and the total: from the user's Redis copy (one script call),
 * rebuilt from Postgres when missing; from Postgres when the page lies past a capped
 * copy, or when Redis fails (the copy is derived, the feed must still answer).
 */
async function pageRows(session: Session, offset: number, limit: number): Promise<PageRows> {
	const { communityId, userId } = session
	try {
		let cached = await readPage(userId, offset, limit)
		if (!cached && (await rebuild(communityId, userId)))
			cached = await readPage(userId, offset, limit)
		if (cached && (cached.complete || offset + limit <= cached.cached)) {
			const total = cached.complete
				? cached.cached
				: (await activityPage(sql, communityId, userId, 0, 0)).total
			return { ...cached, total }
		}
	} catch (error) {
		log.warn({ err: error, userId }, 'activity copy unreadable; reading Postgres')
	}
	const { rows, total } = await activityPage(sql, communityId, userId, limit, offset)
	const activities = rows.map((row) => parseRecord(activityRecord(row), row.is_read))
	return { activities, total, version: null, blocked: null, flags: null }
}

/**
 * A page of the notification feed as the `data` JSON, `{activities, users, topics,
 * widgets, total_count}`. Page 1 kept in the process (kept-page.ts) while the versions
 * it was rendered under stand: one round trip of plain commands and a splice of the
 * viewer's flags. Otherwise one round trip: the activities (records, mostly JSON
 * already) with the viewer's blocks and flags in one script call on the user's copy,
 * and the community's feed version beside it; then posts and users as the bytes the
 * feed engine caches, kept in the process under that version (a second round trip when
 * they are not). The page is spliced from those bytes, nothing re-serialized. Postgres
 * only for comments, topics and widgets when the page has any.
 */
export async function activityFeedJson(
	request: Request,
	session: Session,
	page: number | undefined,
	pageSize: number | undefined,
	v1: boolean,
): Promise<Buffer> {
	const p = paging(page, pageSize, 20)
	const key = p.offset === 0 ? keptPageKey(session.userId, p.pageSize, v1) : null
	const warm = key ? await (started(request, key) ?? currentKeptPage(session, key)) : undefined
	if (warm && warm.kept.role === session.role)
		return finishPage(session.communityId, warm.kept.body, warm.flags, warm.kept, warm.kept)
	const [rows, version] = await Promise.all([
		pageRows(session, p.offset, p.pageSize),
		feedVersion(session.communityId),
	])
	const loaded = await loadEntities(session, rows, version)
	const body = renderBody(session, rows.activities, loaded, v1)
	const rest = {
		topicIds: [...new Set(loaded.posts.flatMap((post) => post.topicIds))],
		widgetIds: [...new Set(loaded.posts.flatMap((post) => post.widgetIds))],
		total: rows.total,
	}
	const hasComments = rows.activities.some((a) => a.entityType === EntityType.comment)
	if (key && rows.version !== null && !hasComments)
		keepActivityPage(key, {
			keptAt: Date.now(),
			role: session.role,
			served: new Renderings(1),
			copyVersion: rows.version,
			feedVersion: version,
			blocked: loaded.blocked,
			page: body.holes.map((id) => ({ id })),
			body,
			...rest,
		})
	return finishPage(session.communityId, body, loaded.flags, rest)
}

/** Whether a request asks for the names of v1 (`x-accept-version: v1`) rather than codes. */
export const wantsV1 = (request: Request) =>
	request.headers.get('x-accept-version')?.trim().toLowerCase() === 'v1'

const earlyLabel = (key: string) => `activity|${key}`
const started = (request: Request, key: string) =>
	takeEarly<WarmPage | undefined>(request, earlyLabel(key))

/**
 * Starts the kept page 1's round trip beside the token's checks (plugin.ts EarlyRead), from
 * the raw query: a warm page then costs one round trip in all. Page 2 on is left alone.
 */
export function startActivityEarly(
	request: Request,
	caller: Caller,
	rawQuery: Record<string, unknown>,
): void {
	const p = pagingFromRaw(rawQuery, 20)
	if (p.offset !== 0) return
	const key = keptPageKey(caller.userId, p.pageSize, wantsV1(request))
	keepEarly(request, earlyLabel(key), currentKeptPage(caller, key))
}

/** `{"activities":[…],"users":{…}` with the posts' flags left open. */
function renderBody(
	session: Session,
	activities: PageActivity[],
	loaded: Awaited<ReturnType<typeof loadEntities>>,
	v1: boolean,
) {
	const users = new Map<number, Person['user']>()
	for (const [id, person] of loaded.people) users.set(id, person.user)
	const ctx = { users, recipientJson: JSON.stringify(session.uuid), v1 }
	const out = new FlagPageWriter()
	out.str('{"activities":[')
	let first = true
	for (const activity of activities) {
		const entity = loaded.entities.get(activity.entityId)
		if (!entity) continue
		out.str(first ? '' : ',')
		out.str(activityHead(activity, entity.ownerUuid, ctx))
		splice(out, entity.json)
		out.str('}')
		first = false
	}
	out.str('],"users":{')
	first = true
	for (const uuid of loaded.named) {
		const person = loaded.byUuid.get(uuid)
		if (!person) continue
		out.str(`${first ? '' : ','}${JSON.stringify(uuid)}:`)
		splice(out, person.json)
		first = false
	}
	return out.done()
}

/**
 * The body with the viewer's flags, then the posts' topics and widgets (read now) and the
 * total. A kept page remembers what it last served: a user reading again with the same
 * flags and tail gets those bytes without another copy.
 */
async function finishPage(
	communityId: number,
	body: FlagTemplate,
	flags: ViewerFlags,
	rest: { topicIds: string[]; widgetIds: string[]; total: number },
	kept?: KeptActivityPage,
): Promise<Buffer> {
	const { topics, widgets } =
		rest.topicIds.length + rest.widgetIds.length > 0
			? await topicsAndWidgets(communityId, rest.topicIds, rest.widgetIds)
			: noTopicsOrWidgets
	const tail = `},"topics":${JSON.stringify(topics)},"widgets":${JSON.stringify(widgets)},"total_count":${rest.total}}`
	const fill = () => fillFlags(body, flags, tail)
	return kept ? kept.served.of(`${flagBits(body.holes, flags)}${tail}`, fill) : fill()
}

const noTopicsOrWidgets = { topics: {}, widgets: {} }

async function topicsAndWidgets(communityId: number, topicIds: string[], widgetIds: string[]) {
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
		if (count === null && (await rebuild(session.communityId, session.userId)))
			count = await readUnread(session.userId)
		if (count !== null) return { count }
	} catch (error) {
		log.warn({ err: error, userId: session.userId }, 'activity copy unreadable; reading Postgres')
	}
	return { count: await unreadCount(sql, session.communityId, session.userId) }
}

export async function markActivityRead(session: Session, activityId: string): Promise<void> {
	const marked = isId(activityId)
		? await markRead(sql, session.communityId, session.userId, activityId)
		: []
	if (marked.length === 0) throw notFound('Activity')
	await applyChanges(marked.map(readChange))
	await announceBadge(session.communityId, session.userId)
}

export async function markAllActivitiesRead(session: Session): Promise<void> {
	await applyChanges((await markAllRead(sql, session.communityId, session.userId)).map(readChange))
	await announceBadge(session.communityId, session.userId)
}

const readChange = (m: ReadMark): Change => ({
	userId: m.recipient_id,
	communityId: m.community_id,
	op: 'read',
	id: m.id,
	version: m.version,
})
