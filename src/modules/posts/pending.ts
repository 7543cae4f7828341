// Pending posts (post_moderation, modules/settings/moderation.ts): a new post a CM must
// approve first. It is written with its topics, widgets and attachments but held
// (posts.held = 'pending': the visibility rule shows it to its author and CMs only) and
// nothing else happens — no feed placement or fan-out, no tags, notification or
// webhook. Approval does all of that as if the post were created then (dated now);
// refusal deletes it and tells the author.
import { sql, transaction } from '../../lib/db'
import { feedManager } from '../../timelines'
import { recordEvents } from '../../webhooks/outbox'
import type { Session } from '../auth/session'
import { announceQueue } from '../moderation/queue-live'
import { Action, EntityType } from '../notifications/model'
import { onPostTagged, recordActivities } from '../notifications/service'
import { findTopicsByIds } from '../topics/repo'
import { presentUserForWebhook } from '../users/present'
import { findUserById, findUsersByUuids } from '../users/repo'
import { taggedUuids } from '../users/tags'
import { announceNew } from './announce'
import { resolveAttachments } from './attachments'
import { holdPending, refusePending, releasePending } from './pending-repo'
import {
	assertUsable,
	type NewPostRequest,
	readAhead,
	type WrittenPost,
	writtenOf,
} from './post-batch'
import { loadPost, postEventData } from './present'
import { insertPosts, insertTags, insertWidgetLinks, linkTopicsOf } from './repo'

/** Writes the post held for approval (POST /feed/post under post_moderation). */
export async function createPending(r: NewPostRequest): Promise<WrittenPost> {
	const c = r.session.communityId
	const read = await readAhead(sql, [r])
	const written = await transaction(async (tx) => {
		const resolved = await resolveAttachments(tx, c, r.id, r.session.userId, r.attachments)
		const written = writtenOf(r, resolved, read)
		await insertPosts(tx, c, [written.row])
		await linkTopicsOf(
			tx,
			c,
			r.topicIds.map((topicId) => ({ postId: r.id, topicId })),
		)
		await insertWidgetLinks(tx, c, r.id, written.post.widget_ids)
		const topics = await findTopicsByIds(tx, c, r.topicIds)
		assertUsable(r.topicIds, topics)
		written.context.topics = topics
		await holdPending(tx, c, r.id, r.session.userId, Date.now())
		return { post: { ...written.post, held: 'pending' }, context: written.context }
	})
	announceQueue(c, 'post.pending')
	return written
}

/** PENDING_POST_APPROVED: the post is placed, tags and webhooks fire, dated now. */
export async function approvePending(session: Session, postId: string): Promise<void> {
	const c = session.communityId
	const approved = await transaction(async (tx) => {
		if (!(await releasePending(tx, c, postId, Date.now()))) return null
		const row = await loadPost(tx, c, postId)
		const tagged = await findUsersByUuids(tx, c, taggedUuids(row.heading, row.text))
		const taggedIds = tagged.map((u) => u.id)
		if (taggedIds.length > 0) {
			await insertTags(tx, c, postId, taggedIds)
			await onPostTagged(tx, { communityId: c, postId, taggedIds, actorId: row.user_id })
		}
		const data = await postEventData(tx, c, postId)
		await recordEvents(tx, [
			{ communityId: c, event: 'post.created', data },
			...(tagged.length > 0
				? [
						{
							communityId: c,
							event: 'post.tagged',
							data: { ...data, tagged_users: tagged.map(presentUserForWebhook) },
						},
					]
				: []),
		])
		const post = await loadPost(tx, c, postId)
		return { post, feed: await feedManager.onPostsCreated(tx, [post]) }
	})
	if (!approved) return
	await approved.feed.afterCommit()
	announceNew(approved.post)
	// A copy cached while it was pending (its author or a CM read it) still says so.
	await feedManager.onPostsHeld(c, [postId])
}

/** PENDING_POST_REJECTED: the post is deleted and its author told. */
export async function rejectPending(session: Session, postId: string): Promise<void> {
	const c = session.communityId
	const refused = await transaction(async (tx) => {
		const authorId = await refusePending(tx, c, postId, session.userId, Date.now())
		if (authorId === null) return false
		const author = await findUserById(tx, c, authorId)
		if (author)
			await recordActivities(tx, {
				communityId: c,
				action: Action.custom,
				entityType: EntityType.user,
				entityId: author.uuid,
				postId: null,
				commentId: null,
				actorId: session.userId,
				recipientIds: [author.id],
				grouped: false,
				customText: 'A community manager did not approve your post',
			})
		return true
	})
	if (refused) await feedManager.onPostsHeld(c, [postId])
}
