// The dashboard overview: what a community manager checks first — how big the
// community is, whether its webhooks are healthy, and how webhook deliveries and
// pushes went today.
import { replica, sql } from '../../lib/db'
import { queueCounts } from '../moderation/queue-repo'
import { findCommunity } from '../projects/repo'
import { attemptsByHour, countCommunity, pushesByHour, webhookHealth } from './repo'

const HOUR = 3_600_000

/** 24 hourly buckets ending with the current hour; hours without rows are zeros. */
function lastDayBuckets<K extends string>(
	rows: ({ hour: number } & Record<K, number>)[],
	names: K[],
	now: number,
) {
	const byHour = new Map(rows.map((row) => [Number(row.hour), row]))
	const current = Math.floor(now / HOUR) * HOUR
	return Array.from({ length: 24 }, (_, index) => {
		const hour = current - (23 - index) * HOUR
		const row = byHour.get(hour)
		const counts = Object.fromEntries(names.map((name) => [name, row?.[name] ?? 0]))
		return { hour, ...counts } as { hour: number } & Record<K, number>
	})
}

export async function overview(communityId: number, now = Date.now()) {
	const since = Math.floor(now / HOUR) * HOUR - 23 * HOUR
	const [community, counts, queue, webhooks, attempts, pushes] = await Promise.all([
		findCommunity(sql, communityId),
		// counts and charts: a replica's lag of a second does not matter here
		countCommunity(replica, communityId),
		// the primary: the live `queue` events count there, and a CM's own close must show
		queueCounts(sql, communityId),
		webhookHealth(replica, communityId),
		attemptsByHour(replica, communityId, since),
		pushesByHour(replica, communityId, since),
	])
	return {
		community: { id: communityId, name: community?.name ?? '' },
		counts,
		queue,
		webhooks: webhooks.map((webhook) => ({
			webhook_id: webhook.id,
			webhook_type: webhook.webhook_type,
			url: webhook.url,
			is_active: webhook.is_active,
			deactivation_reason: webhook.deactivation_reason,
			pending_deliveries: webhook.pending,
		})),
		webhook_attempts_24h: lastDayBuckets(attempts, ['delivered', 'failed'], now),
		pushes_24h: lastDayBuckets(pushes, ['sent', 'failed'], now),
	}
}

/** The review queue's open counts: what the live `queue` event carries, for a page's first look. */
export const reviewQueue = (communityId: number) => queueCounts(sql, communityId)
