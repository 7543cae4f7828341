// SQL of the dashboard's overview: counts of one community and the webhook attempts
// of the last 24 hours by hour.
import type { Db } from '../../lib/db'

export interface CommunityCounts {
	members: number
	cms: number
	posts: number
	comments: number
	topics: number
}

export async function countCommunity(sql: Db, communityId: number): Promise<CommunityCounts> {
	const [row] = await sql<CommunityCounts[]>`
		select
			(select count(*)::int from users
				where community_id = ${communityId} and not is_deleted and role = 'member') as members,
			(select count(*)::int from users
				where community_id = ${communityId} and not is_deleted and role = 'cm') as cms,
			(select count(*)::int from posts
				where community_id = ${communityId} and not is_deleted) as posts,
			(select count(*)::int from comments
				where community_id = ${communityId} and not is_deleted) as comments,
			(select count(*)::int from topics where community_id = ${communityId}) as topics`
	return row
}

export interface WebhookHealthRow {
	id: string
	webhook_type: string
	url: string
	is_active: boolean
	deactivation_reason: string | null
	pending: number
}

export function webhookHealth(sql: Db, communityId: number) {
	return sql<WebhookHealthRow[]>`
		select w.id, w.webhook_type, w.url, w.is_active, w.deactivation_reason,
			(select count(*)::int from webhook_deliveries d
				where d.community_id = ${communityId} and d.webhook_id = w.id
					and d.status = 'pending') as pending
		from webhooks w where w.community_id = ${communityId}
		order by w.created_at`
}

export interface HourlyAttempts {
	hour: number
	delivered: number
	failed: number
}

/** Attempts per hour since `sinceMs`, hours with none left out (the page fills them). */
export function attemptsByHour(sql: Db, communityId: number, sinceMs: number) {
	return sql<HourlyAttempts[]>`
		select (a.created_at / 3600000 * 3600000)::bigint::float8 as hour,
			count(*) filter (where a.status = 'delivered')::int as delivered,
			count(*) filter (where a.status = 'failed')::int as failed
		from webhook_attempts a
			join webhooks w on w.community_id = a.community_id and w.id = a.webhook_id
		where a.community_id = ${communityId} and a.created_at >= ${sinceMs}
		group by 1 order by 1`
}

export interface HourlyPushes {
	hour: number
	sent: number
	failed: number
}

/** Pushes that reached an outcome per hour since `sinceMs` (sent, or failed/unknown/discarded). */
export function pushesByHour(sql: Db, communityId: number, sinceMs: number) {
	return sql<HourlyPushes[]>`
		select (updated_at / 3600000 * 3600000)::bigint::float8 as hour,
			count(*) filter (where status = 'sent')::int as sent,
			count(*) filter (where status in ('failed', 'unknown', 'discarded'))::int as failed
		from push_deliveries
		where community_id = ${communityId} and updated_at >= ${sinceMs}
			and status not in ('pending', 'sending')
		group by 1 order by 1`
}
