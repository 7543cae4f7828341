// Notification feed rules on the write side. Every write that notifies someone (a like,
// comment, reply, tag, connection request or accept) calls one function here inside
// its own transaction, so the activity and its push deliveries commit with it, or not
// at all. Nobody is notified of their own action, by someone in a block with them, or
// of back-dated (imported) content. The `notifications.feed` webhook pages are recorded
// here too, for the same recipients, so a webhook never tells of an activity that was
// not made (a like in a block, a self-like) nor misses one (a request, an accept, 12).

import { afterCommitTogether, type Db } from '../../lib/db'
import { activityPushesCtes, enqueueActivityPushes, type PushPayload } from '../../push/outbox'
import { feedNotificationEvents } from '../../webhooks/notifications'
import { newEventId, recordEventsFromCtes, recordFeedNotification } from '../../webhooks/outbox'
import { findUserById, type UserRow } from '../users/repo'
import { announceLater } from './live'
import { Action, type ActionCode, actionNames, EntityType } from './model'
import { activityText, ctaOf, plainText } from './present'
import {
	commentersOf,
	deleteActivitiesOfComment,
	deleteActivitiesOfPost,
	deleteEmptyPostGroups,
	type JoinFollowUps,
	type NewActivities,
	type Removed,
	removeActor,
	removePostActors,
	upsertActivities,
	upsertGroupActivities,
} from './repo'
import { applyChanges, type Change, rowChange } from './store'

// The changes of every write in one transaction (a batch of likes) go to the copies in
// one applyChanges call: one pipeline. Versions order them, not the order of the calls.
// Then the recipients' live `me` scopes hear of them (the badge read after the copy
// moved), without holding the writer's answer (a custom activity reaches thousands).
const applyAll = async (lists: Change[][]) => {
	await applyChanges(lists.flat())
	announceLater(lists.flat())
}
const changeCopiesAfterCommit = (tx: Db, changes: Change[]) =>
	afterCommitTogether(tx, applyAll, changes)

type Activities = Omit<NewActivities, 'now' | 'grouped'> & { grouped?: boolean }

/** Upserts the activities and queues a push per touched group and device. */
export async function recordActivities(tx: Db, a: Activities): Promise<number> {
	const recipientIds = [...new Set(a.recipientIds)]
	if (recipientIds.length === 0) return 0
	const now = Date.now()
	// Sent together, so a like pays one round trip for both (the upsert takes the group's
	// row lock, held to the commit: on a popular post every like waits on it).
	const [touched, payload] = await Promise.all([
		upsertActivities(tx, {
			...a,
			recipientIds,
			grouped: a.grouped ?? true,
			now,
		}),
		pushPayload(tx, a),
	])
	if (touched.length === 0) return 0
	changeCopiesAfterCommit(
		tx,
		touched.map(({ customer_id: _, ...row }) => rowChange(row)),
	)
	await Promise.all([
		enqueueActivityPushes(tx, {
			communityId: a.communityId,
			actorId: a.actorId,
			activities: touched,
			payload,
			now,
		}),
		// The webhook is told exactly what the recipients are (blocks, self and history
		// already left out): the push's data and their customer ids (DESIGN section 9).
		recordFeedNotification(tx, {
			communityId: a.communityId,
			payload: { ...payload, community_id: String(a.communityId) },
			uuids: touched.map((t) => t.customer_id),
		}),
	])
	return touched.length
}

/** What the push says: this actor's part ("Bob liked your post"), not the group's text. */
async function pushPayload(tx: Db, a: Activities): Promise<PushPayload> {
	return payloadOf(a, await findUserById(tx, a.communityId, a.actorId))
}

function payloadOf(
	a: Pick<Activities, 'action' | 'entityType' | 'entityId' | 'postId' | 'commentId' | 'customText'>,
	actor: UserRow | null | undefined,
): PushPayload {
	const title = a.customText ?? activityText(a.action, actor ?? undefined, 1)
	return {
		title: plainText(title),
		sub_title: '',
		route: ctaOf({
			entity_type: a.entityType,
			entity_id: a.entityId,
			post_id: a.postId,
			comment_id: a.commentId,
		}),
		category: actionNames[a.action],
	}
}

const deletions = (removed: Removed[]): Change[] =>
	removed.map((r) => ({
		userId: r.recipient_id,
		communityId: r.community_id,
		op: 'del',
		id: r.id,
		version: 0,
	}))

/** Unlike: the actor leaves its groups (emptied ones go), in Postgres then in the copies. */
async function removeActorOf(
	tx: Db,
	communityId: number,
	action: ActionCode,
	groupKey: string,
	actorId: number,
) {
	const { changed, deleted } = await removeActor(tx, communityId, action, groupKey, actorId)
	if (changed.length + deleted.length > 0)
		changeCopiesAfterCommit(tx, [...changed.map(rowChange), ...deletions(deleted)])
}

interface Write {
	communityId: number
	actorId: number
	/** a back-dated write (posts/backdating.ts isBackDated, asked by the caller) notifies nobody */
	history?: boolean
}

export interface PostLikeChange {
	communityId: number
	actorId: number
	/** the liker's row (the push's actor), read by the caller */
	actor: UserRow | undefined
	postId: string
	postAuthorId: number
	/** the post's author's row (the recipient: its customer id goes in the webhook), read by the caller */
	postAuthor: UserRow | undefined
	liked: boolean
	/** a back-dated like: no activity */
	history: boolean
}

/**
 * The activities of a batch of post likes and unlikes (lib/group-commit.ts batchCommit;
 * a like alone is a batch of one), every statement sent at once, none waiting for
 * another's answer (so the caller can send its COMMIT right behind them: lib/db.ts
 * commitNow): the likes join their groups in one upsert, which also writes the push rows
 * and `notifications.feed` events of the likes that joined one; the unlikes leave theirs,
 * and the groups left empty go, by the statement sent right behind. The group rows are
 * locked by these statements, so the caller sends them before its other row locks.
 */
export function onPostLikesChanged(tx: Db, likes: PostLikeChange[]): Promise<void> {
	return Promise.all(
		[...Map.groupBy(likes, (l) => l.communityId)].map(([communityId, ofCommunity]) =>
			onLikesInCommunity(tx, communityId, ofCommunity),
		),
	).then(() => undefined)
}

/** onPostLikesChanged for one community's likes: its statements name it (one Citus shard each). */
function onLikesInCommunity(tx: Db, communityId: number, likes: PostLikeChange[]): Promise<void> {
	const action = Action.likeOnPost
	const unliked = likes.filter((l) => !l.liked)
	const news = likes.filter((l) => l.liked && !l.history)
	const now = Date.now()
	const joins =
		news.length === 0
			? []
			: upsertGroupActivities(
					tx,
					{
						communityId,
						action,
						entityType: EntityType.post,
						groups: news.map((l) => ({
							entityId: l.postId,
							postId: l.postId,
							recipientId: l.postAuthorId,
							actorIds: [l.actorId],
							data: [whatAJoinWrites(l)],
						})),
						now,
					},
					pushesAndWebhooksOfJoins(tx, communityId, now),
				).execute()
	const leaves =
		unliked.length === 0
			? []
			: removePostActors(
					tx,
					communityId,
					action,
					unliked.map((l) => ({ postId: l.postId, actorId: l.actorId })),
				).execute()
	const emptied =
		unliked.length === 0
			? []
			: deleteEmptyPostGroups(tx, communityId, action, [
					...new Set(unliked.map((l) => l.postId)),
				]).execute()
	return Promise.all([joins, leaves, emptied]).then(([touched, changed, deleted]) => {
		changeCopiesAfterCommit(tx, [
			...touched.map(({ customer_id: _, joined: __, ...row }) => rowChange(row)),
			...changed.filter((c) => c.actor_count > 0).map(rowChange),
			...deletions(deleted),
		])
	})
}

/**
 * A like's push payload ("Bob liked your post") and its `notifications.feed` event to the
 * post's author, written only if the like joins the author's group (upsertGroupActivities
 * leaves out self-likes and blocks): `joined.x` of pushesAndWebhooksOfJoins.
 */
function whatAJoinWrites(l: PostLikeChange) {
	const payload = payloadOf(
		{
			action: Action.likeOnPost,
			entityType: EntityType.post,
			entityId: l.postId,
			postId: l.postId,
			commentId: null,
		},
		l.actor,
	)
	const push = { ...payload, community_id: String(l.communityId) }
	const author = l.postAuthor
	const [event] = feedNotificationEvents({
		communityId: l.communityId,
		payload: push,
		uuids: author ? [author.user_unique_id ?? author.uuid] : [],
	})
	return { push, event_id: newEventId(), event: event?.data ?? null }
}

/** The push rows and webhook events of the actors that joined a group, as CTEs of its upsert. */
function pushesAndWebhooksOfJoins(tx: Db, communityId: number, now: number): JoinFollowUps {
	const pushes = tx`select c, activity_id as a, r, a as u, x->'push' as p from joined`
	const events = tx`
		select x->>'event_id' as id, c, 'notifications.feed' as e, 'feed' as s, x->'event' as d
		from joined where x->'event' <> 'null'::jsonb`
	return {
		ctes: tx`${activityPushesCtes(tx, communityId, pushes, now)}, ${recordEventsFromCtes(tx, communityId, events)}`,
		read: ['pushes_notified', 'deliveries_notified'],
	}
}

export async function onCommentLikeChanged(
	tx: Db,
	e: Write & { postId: string; commentId: string; commentAuthorId: number; liked: boolean },
): Promise<void> {
	if (!e.liked) {
		await removeActorOf(tx, e.communityId, Action.likeOnComment, e.commentId, e.actorId)
		return
	}
	if (e.history) return
	await recordActivities(tx, {
		communityId: e.communityId,
		action: Action.likeOnComment,
		entityType: EntityType.comment,
		entityId: e.commentId,
		postId: e.postId,
		commentId: e.commentId,
		actorId: e.actorId,
		recipientIds: [e.commentAuthorId],
	})
}

/**
 * A new comment or reply: 9 to the author of the comment replied to, 7 to the post's
 * author (unless that is who was replied to), 11 to users tagged in it, and 12 to
 * every earlier commenter of the post not already notified.
 */
export async function onCommentAdded(
	tx: Db,
	e: Write & {
		postId: string
		postAuthorId: number
		commentId: string
		parent: { id: string; user_id: number } | null
		taggedIds: number[]
	},
): Promise<void> {
	if (e.history) return
	const base = { communityId: e.communityId, actorId: e.actorId, postId: e.postId }
	const onPost = {
		...base,
		entityType: EntityType.post,
		entityId: e.postId,
		commentId: e.commentId,
	}
	if (e.parent) {
		await recordActivities(tx, {
			...base,
			action: Action.replyOnComment,
			entityType: EntityType.comment,
			entityId: e.parent.id,
			commentId: e.commentId,
			recipientIds: [e.parent.user_id],
		})
	}
	if (e.postAuthorId !== e.parent?.user_id)
		await recordActivities(tx, {
			...onPost,
			action: Action.commentOnPost,
			recipientIds: [e.postAuthorId],
		})
	await onCommentTagged(tx, { ...e, taggedIds: e.taggedIds })
	const notified = [
		e.actorId,
		e.postAuthorId,
		...(e.parent ? [e.parent.user_id] : []),
		...e.taggedIds,
	]
	await recordActivities(tx, {
		...onPost,
		action: Action.commentOnCommentedPost,
		recipientIds: await commentersOf(tx, e.communityId, e.postId, notified),
	})
}

export async function onCommentTagged(
	tx: Db,
	e: Write & { postId: string; commentId: string; taggedIds: number[] },
): Promise<void> {
	if (e.history) return
	await recordActivities(tx, {
		communityId: e.communityId,
		action: Action.taggedInComment,
		entityType: EntityType.comment,
		entityId: e.commentId,
		postId: e.postId,
		commentId: e.commentId,
		actorId: e.actorId,
		recipientIds: e.taggedIds,
	})
}

export async function onPostTagged(
	tx: Db,
	e: Write & { postId: string; taggedIds: number[] },
): Promise<void> {
	if (e.history) return
	await recordActivities(tx, {
		communityId: e.communityId,
		action: Action.taggedInPost,
		entityType: EntityType.post,
		entityId: e.postId,
		postId: e.postId,
		commentId: null,
		actorId: e.actorId,
		recipientIds: e.taggedIds,
	})
}

/** 100 to the target of a request, 101 to the requester when accepted; the entity is the actor. */
export async function onConnectionChanged(
	tx: Db,
	e: Write & { actorUuid: string; recipientId: number; accepted: boolean },
): Promise<void> {
	await recordActivities(tx, {
		communityId: e.communityId,
		action: e.accepted ? Action.connectionAccepted : Action.connectionRequest,
		entityType: EntityType.user,
		entityId: e.actorUuid,
		postId: null,
		commentId: null,
		actorId: e.actorId,
		recipientIds: [e.recipientId],
	})
}

/** A deleted post or comment takes its activities (and their pending pushes) along. */
export async function onContentDeleted(
	tx: Db,
	e: { communityId: number } & ({ postId: string } | { commentId: string }),
): Promise<void> {
	const removed =
		'postId' in e
			? await deleteActivitiesOfPost(tx, e.communityId, e.postId)
			: await deleteActivitiesOfComment(tx, e.communityId, e.commentId)
	if (removed.length > 0) changeCopiesAfterCommit(tx, deletions(removed))
}
