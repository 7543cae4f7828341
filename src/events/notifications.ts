// `notifications.feed`: one event per page of at most 1,000 recipient uuids, each
// carrying the same notification_payload with current_page and total_pages.
//
// Feed notifications follow from the feed events themselves (a like, comment, reply,
// tag or reaction on someone's content notifies that someone), so recordEvent derives
// them here in the same transaction and no caller can forget one. Other sources
// (custom activities of a CM) call recordFeedNotification directly.
import type { Db } from '../lib/db'

export const feedNotificationPageSize = 1000

export interface FeedNotification {
	communityId: number
	/** what happened: { action, entity_type, entity_id, action_by, activity_text, ... } */
	payload: Record<string, unknown>
	/** recipients (service uuids) */
	uuids: string[]
}

type Record_ = (
	tx: Db,
	input: { communityId: number; event: string; data: unknown },
) => Promise<string>

/** Records the pages inside `tx` with `record` (recordEvent); returns their event ids. */
export async function recordFeedNotificationWith(
	record: Record_,
	tx: Db,
	input: FeedNotification,
): Promise<string[]> {
	const uuids = [...new Set(input.uuids.filter(Boolean))]
	const totalPages = Math.ceil(uuids.length / feedNotificationPageSize)
	const ids: string[] = []
	for (let page = 1; page <= totalPages; page++) {
		const slice = uuids.slice(
			(page - 1) * feedNotificationPageSize,
			page * feedNotificationPageSize,
		)
		const data = {
			current_page: page,
			total_pages: totalPages,
			notification_payload: input.payload,
			uuids: slice,
		}
		ids.push(
			await record(tx, { communityId: input.communityId, event: 'notifications.feed', data }),
		)
	}
	return ids
}

interface Person {
	uuid?: string
	name?: string
}
interface FeedEventData {
	post?: { _id?: string }
	post_creator?: Person | null
	post_liked_by?: Person
	tagged_users?: Person[]
	comment?: { _id?: string; uuid?: string; parent_comment?: { _id?: string; uuid?: string } | null }
	comment_creator?: Person | null
	liked_by_user?: Person
}

interface Notice {
	uuids: (string | undefined)[]
	actor: Person | null | undefined
	text: string
	entity: { entity_type: string; entity_id?: string; comment_id?: string }
}

function noticesFor(event: string, d: FeedEventData): Notice[] {
	const post = { entity_type: 'post', entity_id: d.post?._id }
	const onComment = { ...post, comment_id: d.comment?._id }
	switch (event) {
		case 'post.liked':
			return [
				{
					uuids: [d.post_creator?.uuid],
					actor: d.post_liked_by,
					text: 'liked your post',
					entity: post,
				},
			]
		case 'post.tagged':
			return [
				{
					uuids: (d.tagged_users ?? []).map((u) => u.uuid),
					actor: d.post_creator,
					text: 'tagged you in a post',
					entity: post,
				},
			]
		case 'comment.added': {
			const parent = d.comment?.parent_comment?.uuid
			return [
				{
					uuids: [d.post_creator?.uuid].filter((u) => u !== parent),
					actor: d.comment_creator,
					text: 'commented on your post',
					entity: onComment,
				},
				{
					uuids: [parent],
					actor: d.comment_creator,
					text: 'replied to your comment',
					entity: onComment,
				},
			]
		}
		case 'comment.tagged':
			return [
				{
					uuids: (d.tagged_users ?? []).map((u) => u.uuid),
					actor: d.comment_creator,
					text: 'tagged you in a comment',
					entity: onComment,
				},
			]
		case 'comment.react':
			return [
				{
					uuids: [d.comment?.uuid],
					actor: d.liked_by_user,
					text: 'liked your comment',
					entity: onComment,
				},
			]
		default:
			return []
	}
}

/** The feed notifications an event implies: nobody is notified of their own action. */
export function feedNotificationsFor(
	communityId: number,
	event: string,
	data: unknown,
): FeedNotification[] {
	if (!data || typeof data !== 'object') return []
	return noticesFor(event, data as FeedEventData).flatMap((n) => {
		const uuids = n.uuids.filter((u): u is string => !!u && u !== n.actor?.uuid)
		if (uuids.length === 0) return []
		const payload = {
			action: event,
			...n.entity,
			action_by: n.actor?.uuid ?? null,
			activity_text: `${n.actor?.name ?? 'Someone'} ${n.text}`,
		}
		return [{ communityId, payload, uuids }]
	})
}
