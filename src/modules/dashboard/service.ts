// The dashboard overview: what a community manager checks first — how big the
// community is, whether its webhooks are healthy, and how deliveries went today.
import { sql } from '../../lib/db'
import { findCommunity } from '../projects/repo'
import { attemptsByHour, countCommunity, webhookHealth } from './repo'

const HOUR = 3_600_000

/** 24 hourly buckets ending with the current hour; hours without attempts are zeros. */
function lastDayBuckets(rows: { hour: number; delivered: number; failed: number }[], now: number) {
	const byHour = new Map(rows.map((row) => [Number(row.hour), row]))
	const current = Math.floor(now / HOUR) * HOUR
	return Array.from({ length: 24 }, (_, index) => {
		const hour = current - (23 - index) * HOUR
		const row = byHour.get(hour)
		return { hour, delivered: row?.delivered ?? 0, failed: row?.failed ?? 0 }
	})
}

export async function overview(communityId: number, now = Date.now()) {
	const [community, counts, webhooks, attempts] = await Promise.all([
		findCommunity(sql, communityId),
		countCommunity(sql, communityId),
		webhookHealth(sql, communityId),
		attemptsByHour(sql, communityId, Math.floor(now / HOUR) * HOUR - 23 * HOUR),
	])
	return {
		community: { id: communityId, name: community?.name ?? '' },
		counts,
		webhooks: webhooks.map((webhook) => ({
			webhook_id: webhook.id,
			webhook_type: webhook.webhook_type,
			url: webhook.url,
			is_active: webhook.is_active,
			deactivation_reason: webhook.deactivation_reason,
			pending_deliveries: webhook.pending,
		})),
		webhook_attempts_24h: lastDayBuckets(attempts, now),
	}
}
