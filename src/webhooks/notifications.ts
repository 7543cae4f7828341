// `notifications.feed`: one event per page of at most 1,000 recipient customer ids, each
// carrying the same notification_payload with current_page and total_pages.
//
// The notification feed's writer (modules/notifications/service.ts recordActivities)
// records them in the transaction of the activities, for exactly the recipients it
// made activities for: deriving them from feed events could not see blocks, back-dated
// writes or actions that have no event of their own (connection requests, action 12).
import type { Db } from '../lib/db'

export const feedNotificationPageSize = 1000

export interface FeedNotification {
	communityId: number
	/** the push's data: { title, sub_title, route, category, community_id } */
	payload: Record<string, unknown>
	/** recipients' customer ids (user_unique_id) */
	uuids: string[]
}

type Record_ = (
	tx: Db,
	input: { communityId: number; event: string; data: unknown },
) => Promise<string>

/** The events of a notification: one per page of at most 1,000 recipients. */
export function feedNotificationEvents(input: FeedNotification) {
	const uuids = [...new Set(input.uuids.filter(Boolean))]
	const totalPages = Math.ceil(uuids.length / feedNotificationPageSize)
	return Array.from({ length: totalPages }, (_, i) => ({
		communityId: input.communityId,
		event: 'notifications.feed',
		data: {
			current_page: i + 1,
			total_pages: totalPages,
			notification_payload: input.payload,
			uuids: uuids.slice(i * feedNotificationPageSize, (i + 1) * feedNotificationPageSize),
		},
	}))
}

/** Records the pages inside `tx` with `record` (recordEvent); returns their event ids. */
export async function recordFeedNotificationWith(
	record: Record_,
	tx: Db,
	input: FeedNotification,
): Promise<string[]> {
	const ids: string[] = []
	for (const event of feedNotificationEvents(input)) ids.push(await record(tx, event))
	return ids
}
