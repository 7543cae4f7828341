// SQL of webhook registrations and their operator views (attempt log, replay).

import type { Db } from '../../lib/db'
import { paged } from '../../lib/paged'
import { deliveriesChannel } from '../../webhooks/outbox'

export interface WebhookRow {
	id: string
	community_id: number
	webhook_type: string
	url: string
	sealed_secret: string
	is_active: boolean
	// bigint epoch ms (porsager returns int8 as a string; present.ts converts)
	deactivated_at: number | string | null
	deactivation_reason: string | null
	created_at: number | string
	updated_at: number | string
}

/** Inserts unless the same type and url are registered already (then null). */
export type NewWebhook = Pick<
	WebhookRow,
	'id' | 'community_id' | 'webhook_type' | 'url' | 'sealed_secret' | 'is_active'
> & { created_at: number }

export async function insertWebhook(db: Db, w: NewWebhook) {
	const [created] = await db<WebhookRow[]>`
		insert into webhooks (id, community_id, webhook_type, url, sealed_secret, is_active, created_at, updated_at)
		values (${w.id}, ${w.community_id}, ${w.webhook_type}, ${w.url}, ${w.sealed_secret}, ${w.is_active}, ${w.created_at}, ${w.created_at})
		on conflict (community_id, webhook_type, url) do nothing
		returning *`
	return created ?? null
}

export function listWebhooks(db: Db, communityId: number) {
	return db<WebhookRow[]>`select * from webhooks where community_id = ${communityId} order by id`
}

export async function findWebhook(db: Db, communityId: number, id: string) {
	const [row] = await db<
		WebhookRow[]
	>`select * from webhooks where community_id = ${communityId} and id = ${id}`
	return row ?? null
}

export type WebhookChanges = Partial<
	Pick<WebhookRow, 'webhook_type' | 'url' | 'is_active' | 'deactivated_at' | 'deactivation_reason'>
>

export async function updateWebhook(
	db: Db,
	communityId: number,
	id: string,
	changes: WebhookChanges,
) {
	const set = { ...changes, updated_at: Date.now() }
	const [row] = await db<WebhookRow[]>`
		update webhooks set ${db(set, ...(Object.keys(set) as (keyof typeof set)[]))}
		where community_id = ${communityId} and id = ${id}
		returning *`
	return row ?? null
}

export async function deleteWebhook(db: Db, communityId: number, id: string) {
	const rows =
		await db`delete from webhooks where community_id = ${communityId} and id = ${id} returning id`
	return rows.length > 0
}

export interface DeliveryLogRow {
	id: string
	event_id: string
	event: string
	attempt: number
	status: string
	status_code: number | null
	duration_ms: number | null
	error: string | null
	created_at: number
}

/**
 * The attempt log, newest first: every attempt made, plus deliveries still waiting
 * (pending) or dropped before their next attempt (discarded), shown as that attempt.
 */
export function listDeliveryLog(
	db: Db,
	communityId: number,
	webhookId: string,
	status: string | undefined,
	limit: number,
	offset: number,
) {
	return paged<DeliveryLogRow>(db, {
		columns: db`*`,
		from: db`from (
			select id, event_id, event, attempt, status, status_code, duration_ms, error, created_at::float8 as created_at
			from webhook_attempts where community_id = ${communityId} and webhook_id = ${webhookId}
			union all
			select d.id, d.event_id, e.event, d.attempt + 1, d.status, null, null, null, d.updated_at::float8
			from webhook_deliveries d join events e on e.community_id = d.community_id and e.id = d.event_id
			where d.community_id = ${communityId} and d.webhook_id = ${webhookId} and d.status in ('pending', 'discarded')
		) log
		where ${status ?? null}::text is null or status = ${status ?? null}::text`,
		orderBy: db`created_at desc, id desc`,
		limit,
		offset,
	})
}

export async function countEventsInRange(db: Db, hook: WebhookRow, since: number, until: number) {
	const [row] = await db`
		select count(*)::int as n from events
		where community_id = ${hook.community_id} and event = ${hook.webhook_type}
			and created_at >= ${since} and created_at <= ${until}`
	return row.n as number
}

/** New pending deliveries (fresh attempt count, same event ids) for a time range. */
export async function insertReplay(db: Db, hook: WebhookRow, since: number, until: number) {
	const now = Date.now()
	const rows = await db`
		with inserted as (
			insert into webhook_deliveries (webhook_id, event_id, community_id, due_at, created_at, updated_at)
			select ${hook.id}, e.id, e.community_id, ${now}, ${now}, ${now}
			from events e
			where e.community_id = ${hook.community_id} and e.event = ${hook.webhook_type}
				and e.created_at >= ${since} and e.created_at <= ${until}
			order by e.created_at
			returning 1
		)
		select count(*)::int as n, pg_notify(${deliveriesChannel}, '') from inserted`
	return rows[0].n as number
}
