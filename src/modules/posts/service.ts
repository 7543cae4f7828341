// Posts: create, read, edit, soft delete, a user's post list. New posts are batched:
// plain ones share one statement (post-statement.ts), the others a group-committed
// transaction (post-batch.ts); both build the events, cache and reply from what they
// wrote. An edit or delete is one transaction that ends by loading the post ONCE; that
// row serves the events, the feed engine (after the commit, so a reader sees the whole
// post or nothing) and the reply.

import { coalesce } from '../../lib/coalesce'
import { type Db, sql, transaction } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { batchCommit } from '../../lib/group-commit'
import { isId, isUuid, newId } from '../../lib/ids'
import { paging } from '../../lib/paging'
import { turnsOnConnection, VISIBILITIES, visibilitiesOf } from '../../lib/visibility'
import {
	type CachedPost,
	type FormerPost,
	feedManager,
	type Hydrated,
	hydratePosts,
	presentFeedPost,
	presentFeedUser,
	type Viewer,
	type Visibility,
	type VisibilityRules,
	viewerBlocks,
} from '../../timelines'
import { recordEvent } from '../../webhooks/outbox'
import { Rights, requireRight } from '../auth/rights'
import { isCm, type Session, viewerOf } from '../auth/session'
import { isConnected } from '../connections/repo'
import { announceStats } from '../dashboard/stats-live'
import { onContentDeleted, onPostTagged } from '../notifications/service'
import { withPollResults } from '../polls/feed-poll'
import { holdsNewPost } from '../settings/moderation'
import { presentTopic } from '../topics/present'
import { findTopicsByIds } from '../topics/repo'
import { presentUserForWebhook } from '../users/present'
import { findUserByUuid, type UserRow } from '../users/repo'
import { tagUsers } from '../users/tags'
import { presentWidget } from '../widgets/present'
import { findWidgetsByIds } from '../widgets/repo'
import { announceNew } from './announce'
import { attachmentInputs, checkedMeta, POLL, resolveAttachments } from './attachments'
import { isBackDated, writtenAt } from './backdating'
import type { CreatePostInput, EditPostInput } from './model'
import { createPending } from './pending'
import {
	assertUsable,
	createTogether,
	type NewPostRequest,
	type ReadAhead,
	readAhead,
	type WrittenPost,
} from './post-batch'
import { createPlain, isPlain } from './post-statement'
import { loadPost, loadPostContext, type PostContext, presentPostEvent } from './present'
import {
	findPost,
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

/** Enabled topics of this community, or 400 naming the first one that is not. */
async function assertUsableTopics(tx: Db, communityId: number, ids: string[]): Promise<void> {
	assertUsable(ids, await findTopicsByIds(tx, communityId, ids))
}

function assertNotEmpty(text: string, attachments: unknown[]): void {
	if (text.trim() === '' && attachments.length === 0)
		throw badRequest('A post needs text or attachments')
}

/** The post as this transaction leaves it, with its context; records its events. */
async function loadWritten(
	tx: Db,
	communityId: number,
	postId: string,
	events: { created: boolean; tagged: UserRow[] },
): Promise<{ post: CachedPost; context: PostContext }> {
	const post = await loadPost(tx, communityId, postId)
	const context = await loadPostContext(tx, post)
	const data = presentPostEvent(post, context)
	if (events.created) await recordEvent(tx, { communityId, event: 'post.created', data })
	if (events.tagged.length > 0) {
		const tagged_users = events.tagged.map(presentUserForWebhook)
		await recordEvent(tx, { communityId, event: 'post.tagged', data: { ...data, tagged_users } })
	}
	return { post, context }
}

/**
 * New posts share transactions (lib/group-commit.ts batchCommit), a batch written by a
 * few set-based statements (post-batch.ts): BEGIN (its reads sent beside it), one round
 * trip and COMMIT whatever its size, and one Redis round trip after it for all its posts. Posts never
 * share rows, so two batches are in flight (while one waits on Postgres the next is
 * written). A batch holds one community's posts: its statements each name it.
 */
const postBatches = batchCommit<NewPostRequest, WrittenPost, ReadAhead>({
	key: (r) => r.id,
	group: (r) => r.session.communityId,
	// The authors and tagged users, read with BEGIN: the batch then writes in one round trip.
	prepare: (requests) => readAhead(sql, requests),
	together: createTogether,
	inFlight: 2,
})

/**
 * Plain posts (no topics, widgets or tags) share ONE statement instead (post-statement.ts,
 * lib/coalesce.ts): no BEGIN or COMMIT to wait for. A statement that fails wrote nothing;
 * its posts then go through the transactions above.
 */
const plainPosts = coalesce<NewPostRequest, WrittenPost>({
	together: createPlain,
	group: (r) => r.session.communityId,
	alone: (r) => postBatches.run(r),
})

/**
 * Checks what needs no Postgres here (a failure is this request's own 4xx, never its
 * batch's), then writes the post with the others waiting. The answer and the cache are
 * built from what was written, never read back (issue 17).
 */
export async function createPost(session: Session, input: CreatePostInput) {
	requireRight(session, Rights.createPosts)
	const now = Date.now()
	const text = input.text ?? ''
	const heading = input.heading ?? ''
	const attachments = attachmentInputs(input.attachments ?? [])
	if (attachments.some((a) => a.attachment_type === POLL)) requireRight(session, Rights.createPolls)
	assertNotEmpty(text, attachments)
	for (const [i, a] of attachments.entries()) checkedMeta(a.attachment_meta, i)
	const createdAt = writtenAt(input.created_at, now)
	const request: NewPostRequest = {
		session,
		id: newId(),
		heading,
		text,
		attachments,
		visibility: input.visibility ?? 'public',
		topicIds: [...new Set(input.topic_ids ?? [])],
		createdAt,
		history: isBackDated(createdAt, now),
	}
	// Under post_moderation the post waits for a CM (pending.ts), announced only once
	// approved; imports never wait.
	if (
		!request.history &&
		(await holdsNewPost(session.communityId, session.userId, isCm(session)))
	) {
		const pending = await createPending(request)
		return presentWritten(viewerOf(session), pending.post, pending.context)
	}
	const written = await (isPlain(request) ? plainPosts : postBatches).run(request)
	announceNew(written.post, request.history)
	announceStats(session.communityId, 'post.created')
	return presentWritten(viewerOf(session), written.post, written.context)
}

/** `{post, users, topics, widgets}` of a post just written by the viewer (it cannot have liked or saved it yet). */
function presentWritten(viewer: Viewer, post: CachedPost, context: PostContext) {
	const users: Hydrated['users'] = {}
	if (context.creator) users[context.creator.uuid] = presentFeedUser(context.creator)
	return {
		post: presentFeedPost(post, viewer, { isLiked: false, isSaved: false }),
		users,
		...presentContext(context),
	}
}

function presentContext(context: Pick<PostContext, 'topics' | 'widgets'>) {
	return {
		topics: Object.fromEntries(context.topics.map((t) => [t.id, presentTopic(t)])),
		widgets: Object.fromEntries(context.widgets.map((w) => [w.id, presentWidget(w)])),
	}
}

/** `{post, users}` of one post for the viewer (its flags included), or 404 when it may not see it. */
async function hydrateOne(viewer: Viewer, postId: string, rules: VisibilityRules) {
	const { posts, users }: Hydrated = await hydratePosts(viewer, [postId], rules)
	const post = posts[0]
	if (!post) throw notFound('Post')
	return { post, users }
}

/** What this viewer may see of this author's posts beyond public ones. */
async function visibilitiesFor(viewer: Viewer, authorId: number): Promise<Visibility[]> {
	const post = {
		community_id: viewer.communityId,
		user_id: authorId,
		visibility: 'connections',
		is_deleted: false,
	}
	const connected =
		turnsOnConnection(post, viewer) &&
		(await isConnected(sql, viewer.communityId, viewer.userId, authorId))
	return visibilitiesOf(authorId, viewer, { connected, blocked: false })
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

/** One post for the viewer with its users, topics and widgets, and its row (for the comment page beside it). */
export async function getPost(session: Session, postId: string) {
	const viewer = viewerOf(session)
	const row = await livePost(viewer.communityId, postId)
	const { post, users } = await hydrateOne(viewer, postId, {
		visibilities: await visibilitiesFor(viewer, row.user_id),
		keepHidden: true,
	})
	const [topics, widgets] = await Promise.all([
		findTopicsByIds(sql, viewer.communityId, post.topics),
		findWidgetsByIds(sql, viewer.communityId, post.widget_ids),
	])
	const context = presentContext({ topics, widgets })
	// A poll shows the viewer's own choice and, when its rules allow, the results.
	const polls = { userId: viewer.userId, isCm: viewer.isCm }
	context.widgets = await withPollResults(sql, viewer.communityId, context.widgets, polls)
	return { row, post, users, ...context }
}

export async function editPost(session: Session, postId: string, input: EditPostInput) {
	const c = session.communityId
	const written = await transaction(async (tx) => {
		const row = await livePost(c, postId, true, tx)
		if (row.user_id !== session.userId) throw forbidden()
		const former: FormerPost = {
			visibility: row.visibility,
			is_deleted: row.is_deleted,
			topic_ids: await topicIdsOf(tx, c, postId),
			widget_ids: await widgetIdsOf(tx, c, postId),
		}
		let attachments: unknown[] | undefined
		if (input.attachments) {
			const resolved = await resolveAttachments(
				tx,
				c,
				postId,
				session.userId,
				attachmentInputs(input.attachments),
			)
			attachments = resolved.attachments
			await replaceWidgets(
				tx,
				c,
				postId,
				resolved.widgets.map((w) => w.id),
			)
		}
		assertNotEmpty(input.text ?? row.text, attachments ?? row.attachments)
		if (input.topic_ids) {
			const wanted = [...new Set(input.topic_ids)]
			// Topics the post already has may stay even if disabled since; new ones must be usable.
			await assertUsableTopics(
				tx,
				c,
				wanted.filter((id) => !former.topic_ids.includes(id)),
			)
			await unlinkTopics(
				tx,
				c,
				postId,
				former.topic_ids.filter((id) => !wanted.includes(id)),
			)
			await linkTopics(tx, postId, wanted, c)
		}
		await updatePost(
			tx,
			c,
			postId,
			{ heading: input.heading, text: input.text, attachments, visibility: input.visibility },
			Date.now(),
		)
		const retagged = input.text !== undefined || input.heading !== undefined
		const tagged = retagged
			? await tagUsers(tx, c, [input.heading ?? row.heading, input.text ?? row.text], (ids) =>
					replaceTags(tx, c, postId, ids),
				)
			: []
		await onPostTagged(tx, {
			communityId: c,
			postId,
			taggedIds: tagged.map((u) => u.id),
			actorId: session.userId,
		})
		const loaded = await loadWritten(tx, c, postId, { created: false, tagged })
		return { ...loaded, feed: await feedManager.onPostWritten(tx, loaded.post, former) }
	})
	await written.feed.afterCommit()
	// Through hydration: the author may have liked or saved the post.
	const viewer = viewerOf(session)
	const { post, users } = await hydrateOne(viewer, postId, {
		visibilities: [...VISIBILITIES],
		keepHidden: true,
	})
	return { post, users, ...presentContext(written.context) }
}

export async function deletePost(session: Session, postId: string, reason: string | null) {
	const c = session.communityId
	const feed = await transaction(async (tx) => {
		const row = await livePost(c, postId, true, tx)
		if (row.user_id !== session.userId && !isCm(session)) throw forbidden()
		const former: FormerPost = {
			visibility: row.visibility,
			is_deleted: false,
			topic_ids: [],
			widget_ids: [],
		}
		await softDeletePost(tx, c, postId, session.userId, reason, Date.now())
		await onContentDeleted(tx, { communityId: c, postId })
		return feedManager.onPostWritten(tx, await loadPost(tx, c, postId), former)
	})
	await feed.afterCommit()
	return { _id: postId, is_deleted: true }
}

export async function listUserPosts(
	session: Session,
	uuid: string,
	page?: number,
	pageSize?: number,
) {
	const p = paging(page, pageSize, 20)
	const viewer = viewerOf(session)
	const author = isUuid(uuid) ? await findUserByUuid(sql, viewer.communityId, uuid) : null
	if (!author) throw notFound('User')
	if ((await viewerBlocks(viewer)).has(author.id)) return { posts: [], users: {}, total_count: 0 }
	const visibilities = await visibilitiesFor(viewer, author.id)
	const own = viewer.userId === author.id
	const { ids, total } = await userPostIds(sql, viewer, author.id, own, p.pageSize, p.offset)
	const { posts, users } = await hydratePosts(viewer, ids, { visibilities, keepHidden: own })
	return { posts, users, total_count: total }
}
