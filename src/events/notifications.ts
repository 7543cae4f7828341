// `notifications.feed`: one event per page of at most 1,000 recipient uuids, each
// carrying the same notification_payload with current_page and total_pages.
import type { Db } from '../lib/db'
import { recordEvent } from './outbox'

export const feedNotificationPageSize = 1000

export interface FeedNotification {
	communityId: number
	/** what happened, e.g. { action: 'post.liked', entity_type: 'post', entity_id, action_by } */
	payload: Record<string, unknown>
	/** recipients (service uuids) */
	uuids: string[]
}

/** Records the pages inside `tx`; returns their event ids (none when nobody is notified). */
export async function recordFeedNotification(tx: Db, input: FeedNotification): Promise<string[]> {
	const uuids = [...new Set(input.uuids)]
	const totalPages = Math.ceil(uuids.length / feedNotificationPageSize)
	const ids: string[] = []
	for (let page = 1; page <= totalPages; page++) {
		const slice = uuids.slice((page - 1) * feedNotificationPageSize, page * feedNotificationPageSize)
		ids.push(
			await recordEvent(tx, {
				communityId: input.communityId,
				event: 'notifications.feed',
				data: { current_page: page, total_pages: totalPages, notification_payload: input.payload, uuids: slice },
			}),
		)
	}
	return ids
}
