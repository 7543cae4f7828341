// Posts: create, read, edit, soft delete, a user's post list. Postgres is written in
// one transaction (post, topic and widget links, tags, fan-out job, events); the
// Redis feeds and cache are updated right after commit, so a reader sees the whole
// post or nothing.
import { recordEvent } from '../../events/outbox'
import { type Db, sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { isId, isUuid, newId } from '../../lib/ids'
import { paging } from '../../lib/paging'
import { enqueueFanOut, enqueueFanOutRemoval } from '../../timelines/fanout'
import { type Hydrated, hydratePosts, type VisibilityRules } from '../../timelines/hydrate'
import { refreshPosts, viewerBlocks } from '../../timelines/post-cache'
import { type Viewer, viewerFromSession } from '../../timelines/present'
import type { Visibility } from '../../timelines/repo'
import type { Session } from '../auth/plugin'
import { findCurrentRole } from '../auth/repo'
import { isConnected } from '../connections/repo'
import { presentTopic } from '../topics/present'
import { findTopicsByIds } from '../topics/repo'
import { presentUserForWebhook } from '../users/present'
import { findUserByUuid, findUsersByUuids } from '../users/repo'
import { presentWidget } from '../widgets/present'
import { findWidgetsByIds } from '../widgets/repo'
import { resolveAttachments } from './attachments'
import { isBackDated, writtenAt } from './backdating'
import { rootComments } from './comments/service'
import type { CreatePostInput, EditPostInput } from './model'
import { postEventData } from './present'
import {
	findPost,
	insertPost,
	linkTopics,
	type PostRow,
	replaceTags,
	replaceWidgets,
	softDeletePost,
	topicIdsOf,
	unlinkTopics,
	updatePost,
	userPostIds,
	widgetIdsOf,
} from './repo'
import { taggedUuids } from './tags'

const ALL: Visibility[] = ['public', 'connections', 'private']

/** The viewer with its role as stored now (a CM grant applies without a new token). */
async function viewerOf(session: Session): Promise<Viewer> {
	const role = (await findCurrentRole(sql, session.userId)) ?? session.role
	return viewerFromSession({ ...session, role })
}

/** Enabled topics of this community, or 400 naming the first one that is not. */
async function assertUsableTopics(tx: Db, communityId: number, ids: string[]): Promise<void> {
	const found = new Map((await findTopicsByIds(tx, communityId, ids)).map((t) => [t.id, t]))
	for (const id of ids) {
		const topic = found.get(id)
		if (!topic) throw badRequest(`Unknown topic ${id}`)
		if (!topic.is_enabled) throw badRequest(`Topic ${id} is disabled`)
	}
}

function assertNotEmpty(text: string, attachments: unknown[]): void {
	if (text.trim() === '' && attachments.length === 0)
		throw badRequest('A post needs text or attachments')
}

async function taggedUserIds(tx: Db, communityId: number, texts: string[]): Promise<number[]> {
	return (await findUsersByUuids(tx, communityId, taggedUuids(...texts))).map((u) => u.id)
}

/** Tags the users named in the texts; emits post.tagged for the newly tagged ones. */
async function tagUsers(
	tx: Db,
	communityId: number,
	postId: string,
	texts: string[],
): Promise<void> {
	const users = await findUsersByUuids(tx, communityId, taggedUuids(...texts))
	const added = new Set(
		await replaceTags(
			tx,
			postId,
			users.map((u) => u.id),
		),
	)
	const tagged = users.filter((u) => added.has(u.id))
	if (tagged.length === 0) return
	const data = await postEventData(tx, communityId, postId)
	await recordEvent(tx, {
		communityId,
		event: 'post.tagged',
		data: { ...data, tagged_users: tagged.map(presentUserForWebhook) },
	})
}

export async function createPost(session: Session, input: CreatePostInput) {
	const now = Date.now()
	const text = input.text ?? ''
	const inputs = input.attachments ?? []
	assertNotEmpty(text, inputs)
	const createdAt = writtenAt(input.created_at, now)
	const history = isBackDated(createdAt, now)
	const topicIds = [...new Set(input.topic_ids ?? [])]
	const c = session.communityId
	const id = newId()
	const visibility = input.visibility ?? 'public'
	await sql.begin(async (tx) => {
		await assertUsableTopics(tx, c, topicIds)
		const { attachments, widgets } = await resolveAttachments(tx, c, id, session.userId, inputs)
		await insertPost(tx, {
			id,
			community_id: c,
			user_id: session.userId,
			heading: input.heading ?? '',
			text,
			attachments,
			visibility,
			created_at: createdAt,
			updated_at: createdAt,
		})
		await linkTopics(tx, id, topicIds)
		await replaceWidgets(
			tx,
			id,
			widgets.map((w) => w.id),
		)
		await enqueueFanOut(tx, {
			id,
			community_id: c,
			user_id: session.userId,
			visibility,
			created_at: createdAt,
		})
		if (history) {
			await replaceTags(tx, id, await taggedUserIds(tx, c, [input.heading ?? '', text]))
			return
		}
		await recordEvent(tx, {
			communityId: c,
			event: 'post.created',
			data: await postEventData(tx, c, id),
		})
		await tagUsers(tx, c, id, [input.heading ?? '', text])
	})
	await refreshPosts(c, [id])
	return postResponse(await viewerOf(session), id, { visibilities: ALL, keepHidden: true })
}

/** `{post, users, topics, widgets}` for one post, or 404 when the viewer may not see it. */
async function postResponse(viewer: Viewer, postId: string, rules: VisibilityRules) {
	const { posts, users }: Hydrated = await hydratePosts(viewer, [postId], rules)
	const post = posts[0]
	if (!post) throw notFound('Post')
	const [topics, widgets] = await Promise.all([
		findTopicsByIds(sql, viewer.communityId, post.topics),
		findWidgetsByIds(sql, viewer.communityId, post.widget_ids),
	])
	return {
		post,
		users,
		topics: Object.fromEntries(topics.map((t) => [t.id, presentTopic(t)])),
		widgets: Object.fromEntries(widgets.map((w) => [w.id, presentWidget(w)])),
	}
}

/** What this viewer may see of this author's posts beyond public ones. */
async function visibilitiesFor(viewer: Viewer, authorId: number): Promise<Visibility[]> {
	if (viewer.userId === authorId || viewer.isCm) return ALL
	if (await isConnected(sql, viewer.userId, authorId)) return ['public', 'connections']
	return ['public']
}

async function livePost(
	communityId: number,
	postId: string,
	lock = false,
	db: Db = sql,
): Promise<PostRow> {
	if (!isId(postId)) throw notFound('Post')
	const post = await findPost(db, communityId, postId, lock)
	if (!post || post.is_deleted) throw notFound('Post')
	return post
}

/** The post with `replies` (a page of its root comments) and everyone they reference in `users`. */
export async function getPost(session: Session, postId: string, page?: number, pageSize?: number) {
	const viewer = await viewerOf(session)
	const post = await livePost(viewer.communityId, postId)
	const found = await postResponse(viewer, postId, {
		visibilities: await visibilitiesFor(viewer, post.user_id),
		keepHidden: true,
	})
	const comments = await rootComments(session, post, page, pageSize)
	return {
		...found,
		post: { ...found.post, replies: comments.replies },
		users: { ...comments.users, ...found.users },
		replies_count: comments.total_count,
	}
}

export async function editPost(session: Session, postId: string, input: EditPostInput) {
	const c = session.communityId
	const former = await sql.begin(async (tx) => {
		const post = await livePost(c, postId, true, tx)
		if (post.user_id !== session.userId) throw forbidden()
		const formerTopics = await topicIdsOf(tx, postId)
		const formerWidgets = await widgetIdsOf(tx, postId)
		let attachments: unknown[] | undefined
		if (input.attachments) {
			const resolved = await resolveAttachments(tx, c, postId, session.userId, input.attachments)
			attachments = resolved.attachments
			await replaceWidgets(
				tx,
				postId,
				resolved.widgets.map((w) => w.id),
			)
		}
		assertNotEmpty(input.text ?? post.text, attachments ?? post.attachments)
		if (input.topic_ids) {
			const wanted = [...new Set(input.topic_ids)]
			// Topics the post already has may stay even if disabled since; new ones must be usable.
			await assertUsableTopics(
				tx,
				c,
				wanted.filter((id) => !formerTopics.includes(id)),
			)
			await unlinkTopics(
				tx,
				postId,
				formerTopics.filter((id) => !wanted.includes(id)),
			)
			await linkTopics(tx, postId, wanted)
		}
		await updatePost(
			tx,
			postId,
			{ heading: input.heading, text: input.text, attachments, visibility: input.visibility },
			Date.now(),
		)
		if (input.visibility && input.visibility !== post.visibility) {
			const fanOut = {
				id: postId,
				community_id: c,
				user_id: post.user_id,
				visibility: input.visibility,
				created_at: post.created_at,
			}
			if (input.visibility === 'private') await enqueueFanOutRemoval(tx, fanOut)
			else await enqueueFanOut(tx, fanOut)
		}
		if (input.text !== undefined || input.heading !== undefined) {
			await tagUsers(tx, c, postId, [input.heading ?? post.heading, input.text ?? post.text])
		}
		return { topics: formerTopics, widgets: formerWidgets }
	})
	await refreshPosts(c, [postId], former.topics, former.widgets)
	return postResponse(await viewerOf(session), postId, { visibilities: ALL, keepHidden: true })
}

export async function deletePost(session: Session, postId: string, reason: string | null) {
	const c = session.communityId
	const viewer = await viewerOf(session)
	await sql.begin(async (tx) => {
		const post = await livePost(c, postId, true, tx)
		if (post.user_id !== session.userId && !viewer.isCm) throw forbidden()
		await softDeletePost(tx, postId, session.userId, reason, Date.now())
		await enqueueFanOutRemoval(tx, {
			id: postId,
			community_id: c,
			user_id: post.user_id,
			visibility: post.visibility,
			created_at: post.created_at,
		})
	})
	await refreshPosts(c, [postId])
	return { _id: postId, is_deleted: true }
}

export async function listUserPosts(
	session: Session,
	uuid: string,
	page?: number,
	pageSize?: number,
) {
	const p = paging(page, pageSize, 20)
	const viewer = await viewerOf(session)
	const author = isUuid(uuid) ? await findUserByUuid(sql, viewer.communityId, uuid) : null
	if (!author) throw notFound('User')
	if ((await viewerBlocks(viewer.userId)).has(author.id))
		return { posts: [], users: {}, total_count: 0 }
	const visibilities = await visibilitiesFor(viewer, author.id)
	const own = viewer.userId === author.id
	const { ids, total } = await userPostIds(
		sql,
		viewer.communityId,
		author.id,
		visibilities,
		own,
		p.pageSize,
		p.offset,
	)
	const { posts, users } = await hydratePosts(viewer, ids, { visibilities, keepHidden: own })
	return { posts, users, total_count: total }
}
