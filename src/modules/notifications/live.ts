// What the notification feed tells a user's live `me` scope after a commit: each new or
// regrouped unread activity, then the badge as an ABSOLUTE unread count (the number
// `GET /feed/user/activity/unread_count` answers, read from Postgres after the commit),
// so a client that missed an event still shows the right number on the next badge.
import type { Db } from '../../lib/db'
import { sql } from '../../lib/db'
import { log } from '../../lib/log'
import { liveScopes, publishLive } from '../../live'
import { unreadCounts } from './live-repo'
import { unreadCount } from './repo'
import type { Change } from './store'

/** announceChanges without holding the caller; a failure is logged. */
export function announceLater(changes: Change[]): void {
	announceChanges(changes).catch((error) =>
		log.warn({ err: (error as Error).message }, 'live activity announcements failed'),
	)
}

/**
 * After commit, once the copies took them: each recipient's changed unread activities,
 * then its badge — every count of a community in one statement, the publishes sent together.
 */
export async function announceChanges(changes: Change[]): Promise<void> {
	await Promise.all(
		[...Map.groupBy(changes, (c) => c.communityId)].map(([communityId, ofCommunity]) =>
			announceInCommunity(communityId, ofCommunity),
		),
	)
}

/** announceChanges of one community's recipients: their counts in one statement. */
async function announceInCommunity(communityId: number, changes: Change[]): Promise<void> {
	const byRecipient = Map.groupBy(changes, (c) => c.userId)
	const counts = await unreadCounts(sql, communityId, [...byRecipient.keys()])
	await Promise.all(
		[...byRecipient].map(async ([recipientId, changed]) => {
			const scope = liveScopes.me(communityId, recipientId)
			for (const { op, row } of changed)
				if (op === 'set' && row)
					await publishLive(scope, {
						type: 'activity.new',
						data: { activity_id: row.id, action: row.action, entity_id: row.entity_id },
					})
			await publishLive(scope, { type: 'badge', data: { count: counts.get(recipientId) ?? 0 } })
		}),
	)
}

/** The user's badge now (after a read, a new activity). */
export async function announceBadge(
	communityId: number,
	userId: number,
	db: Db = sql,
): Promise<void> {
	await publishLive(liveScopes.me(communityId, userId), {
		type: 'badge',
		data: { count: await unreadCount(db, communityId, userId) },
	})
}
