// SQL of the delivery engine: moving fresh deliveries into the schedule, loading what
// an attempt needs, and recording each attempt's outcome. Outcome writes are guarded
// by (status = 'pending', attempt = n - 1), so if two workers ever raced on one
// attempt only the first record counts.
import type { PendingQuery, Row, Sql } from 'postgres'
import { acrossCommunities, type Db } from '../lib/db'
import { newId } from '../lib/ids'
import { claimPerCommunity, perCommunity } from '../lib/per-community'

export interface ScheduledRow {
	id: string
	webhook_id: string
	community_id: number
	due_at: number
}

/**
 * Marks up to `limit` unscheduled pending deliveries as queued and returns them: the
 * communities of the oldest are found across communities (no lock), then each one's
 * rows are claimed on its own (lib/per-community.ts).
 */
export function takeUnqueued(db: Db, limit: number) {
	return claimPerCommunity(
		limit,
		async (tx) =>
			(
				await tx<{ community_id: number }[]>`
					select distinct community_id from (
						select community_id from webhook_deliveries where status = 'pending' and not queued
						order by id limit ${limit}) oldest`
			).map((r) => r.community_id),
		(communityId, left) => db<ScheduledRow[]>`
			update webhook_deliveries set queued = true, updated_at = ${Date.now()}
			where community_id = ${communityId} and id in (
				select id from webhook_deliveries
				where community_id = ${communityId} and status = 'pending' and not queued
				order by id limit ${left} for update skip locked)
			returning id, webhook_id, community_id, due_at::float8 as due_at`,
	)
}

/**
 * Pending deliveries already handed to Redis, in id order after `afterId`, of every
 * community (the reconciler's page: a read across communities, no lock).
 */
export function queuedPendingPage(afterId: string, limit: number) {
	return acrossCommunities(
		(tx) => tx<(ScheduledRow & { updated_at: number })[]>`
			select id, webhook_id, community_id, due_at::float8 as due_at, updated_at::float8 as updated_at
			from webhook_deliveries
			where status = 'pending' and queued and id > ${afterId}
			order by id limit ${limit}`,
	)
}

export interface AttemptRow {
	id: string
	webhook_id: string
	event_id: string
	status: string
	attempt: number
	url: string
	sealed_secret: string
	is_active: boolean
	event: string
	source: string
	data: string
	event_created_at: number
}

export function loadForAttempt(db: Db, communityId: number, ids: string[]) {
	return db<AttemptRow[]>`
		select d.id, d.webhook_id, d.event_id, d.status, d.attempt, w.url, w.sealed_secret, w.is_active,
			e.event, e.source, e.data::text as data, e.created_at::float8 as event_created_at
		from webhook_deliveries d
		join webhooks w on w.community_id = d.community_id and w.id = d.webhook_id
		join events e on e.community_id = d.community_id and e.id = d.event_id
		where d.community_id = ${communityId} and d.id in ${db(ids)}`
}

export interface Outcome {
	communityId: number
	deliveryId: string
	webhookId: string
	eventId: string
	event: string
	attempt: number
	ok: boolean
	statusCode: number | null
	durationMs: number
	error: string | null
}

function attemptValues(outcome: Outcome, now: number) {
	return {
		id: newId(),
		community_id: outcome.communityId,
		delivery_id: outcome.deliveryId,
		webhook_id: outcome.webhookId,
		event_id: outcome.eventId,
		event: outcome.event,
		attempt: outcome.attempt,
		status: outcome.ok ? 'delivered' : 'failed',
		status_code: outcome.statusCode,
		duration_ms: outcome.durationMs,
		error: outcome.error,
		created_at: now,
	}
}

export interface AttemptRecord {
	outcome: Outcome
	/** when the next attempt is due (failed attempts with retries left) */
	retryAt: number | null
}

/**
 * Records a batch of attempts in one statement per community (one commit for many
 * deliveries): delivered ones become delivered, failed ones wait for `retryAt` (or are
 * discarded when their webhook was deactivated meanwhile). Returns each delivery's new
 * status; a delivery missing from the map was recorded first by another worker.
 */
export async function recordAttempts(
	db: Db,
	records: AttemptRecord[],
): Promise<Map<string, string>> {
	const rows = await perCommunity(
		records,
		(r) => r.outcome.communityId,
		(communityId, part) => recordCommunityAttempts(db, communityId, part),
	)
	return new Map(rows.map((r) => [r.id as string, r.status as string]))
}

function recordCommunityAttempts(db: Db, communityId: number, records: AttemptRecord[]) {
	const now = Date.now()
	const o = records.map((r) => r.outcome)
	return db`
		with input as (
			select * from unnest(
				${db.array(o.map((x) => x.deliveryId))}::text[], ${db.array(o.map((x) => x.attempt))}::int[],
				${db.array(o.map((x) => (x.ok ? 1 : 0)))}::int[], ${db.array(records.map((r) => r.retryAt ?? now))}::bigint[],
				${db.array(o.map(() => newId()))}::text[], ${db.array(o.map((x) => x.webhookId))}::text[],
				${db.array(o.map((x) => x.eventId))}::text[], ${db.array(o.map((x) => x.event))}::text[],
				${db.array(o.map((x) => x.statusCode ?? -1))}::int[], ${db.array(o.map((x) => x.durationMs))}::int[],
				${db.array(o.map((x) => x.error ?? ''))}::text[]
			) as i(delivery_id, attempt, ok, due_at, attempt_id, webhook_id, event_id, event, status_code, duration_ms, error)
		), updated as (
			update webhook_deliveries d
			set attempt = i.attempt, updated_at = ${now}, due_at = i.due_at,
				status = case when i.ok = 1 then 'delivered' when w.is_active then 'pending' else 'discarded' end
			from input i, webhooks w
			where d.community_id = ${communityId} and w.community_id = d.community_id
				and d.id = i.delivery_id and w.id = d.webhook_id and d.status = 'pending' and d.attempt = i.attempt - 1
			returning d.id, d.status
		), logged as (
			insert into webhook_attempts (id, community_id, delivery_id, webhook_id, event_id, event, attempt, status, status_code, duration_ms, error, created_at)
			select i.attempt_id, ${communityId}, i.delivery_id, i.webhook_id, i.event_id, i.event, i.attempt,
				case when i.ok = 1 then 'delivered' else 'failed' end,
				nullif(i.status_code, -1), i.duration_ms, nullif(i.error, ''), ${now}
			from input i join updated u on u.id = i.delivery_id
		)
		select id, status from updated`
}

/**
 * The last retry failed: log it, fail the delivery, deactivate the webhook with the
 * reason, and discard its other pending deliveries. Returns the discarded ids, or
 * null when another worker recorded this attempt first.
 */
export function recordExhausted(sql: Sql, outcome: Outcome, reason: string) {
	const now = Date.now()
	return sql.begin(async (tx) => {
		const [failed] = await tx`
			update webhook_deliveries set status = 'failed', attempt = ${outcome.attempt}, updated_at = ${now}
			where community_id = ${outcome.communityId} and id = ${outcome.deliveryId} and status = 'pending' and attempt = ${outcome.attempt - 1}
			returning id`
		if (!failed) return null
		const a = attemptValues(outcome, now)
		await tx`
			insert into webhook_attempts (id, community_id, delivery_id, webhook_id, event_id, event, attempt,
				status, status_code, duration_ms, error, created_at)
			values (${a.id}, ${a.community_id}, ${a.delivery_id}, ${a.webhook_id}, ${a.event_id}, ${a.event},
				${a.attempt}, ${a.status}, ${a.status_code}, ${a.duration_ms}, ${a.error}, ${a.created_at})`
		await tx`
			update webhooks set is_active = false, deactivated_at = ${now}, deactivation_reason = ${reason}, updated_at = ${now}
			where community_id = ${outcome.communityId} and id = ${outcome.webhookId} and is_active`
		return discardPending(tx, outcome.communityId, outcome.webhookId, now)
	})
}

/** Discards every pending delivery of a webhook; returns their Redis members' ids. */
export async function discardPending(
	db: Db,
	communityId: number,
	webhookId: string,
	now = Date.now(),
): Promise<string[]> {
	const rows = await db`
		update webhook_deliveries set status = 'discarded', updated_at = ${now}
		where community_id = ${communityId} and webhook_id = ${webhookId} and status = 'pending'
		returning id`
	return rows.map((r) => r.id as string)
}

export async function discardDelivery(
	db: Db,
	communityId: number,
	deliveryId: string,
): Promise<void> {
	await db`
		update webhook_deliveries set status = 'discarded', updated_at = ${Date.now()}
		where community_id = ${communityId} and id = ${deliveryId} and status = 'pending'`
}

/** Ids are time-ordered (8 hex digits of seconds first), so "older than" is an id range. */
const idBefore = (ms: number) =>
	Math.floor(ms / 1000)
		.toString(16)
		.padStart(8, '0')

/**
 * Deletes attempt-log rows and finished deliveries created before `cutoff`, in batches,
 * community by community: the communities holding such rows are found across
 * communities (no lock), each one's rows are deleted with statements of its own.
 */
export async function pruneDeliveryLog(db: Db, cutoff: number, batch = 5000): Promise<number> {
	const before = idBefore(cutoff)
	const communities = await acrossCommunities(async (tx) => {
		const rows = await tx<{ community_id: number }[]>`
			select community_id from webhook_attempts where id < ${before}
			union select community_id from webhook_deliveries where id < ${before} and status <> 'pending'`
		return rows.map((r) => r.community_id)
	})
	let removed = 0
	for (const c of communities) {
		for (;;) {
			const attempts = await db`
				delete from webhook_attempts where community_id = ${c} and id in (
					select id from webhook_attempts where community_id = ${c} and id < ${before} limit ${batch})`
			const deliveries = await db`
				delete from webhook_deliveries where community_id = ${c} and id in (
					select id from webhook_deliveries
					where community_id = ${c} and id < ${before} and status <> 'pending' limit ${batch})`
			removed += attempts.count + deliveries.count
			if (attempts.count < batch && deliveries.count < batch) break
		}
	}
	return removed
}

/**
 * Event rows (of any types and communities) and one delivery per active webhook of each
 * one's type, in one statement; pg_notify tells the relay, and Postgres delivers it only
 * if the transaction commits.
 */
export async function insertEventsWithDeliveries(
	tx: Db,
	events: NewEventRow[],
	now: number,
	channel: string,
): Promise<void> {
	if (events.length === 0) return
	const communities = new Set(events.map((e) => e.communityId))
	const only = communities.size === 1 ? (events[0] as NewEventRow).communityId : null
	await tx`with ${eventsWithDeliveriesCtes(tx, only, events, now, channel)} select * from deliveries_notified`
}

export interface NewEventRow {
	id: string
	communityId: number
	event: string
	source: string
	data: unknown
}

/**
 * insertEventsWithDeliveries as CTEs of a caller's statement: `event`, `deliveries` and
 * `deliveries_notified`, one row — the statement must read it, or Postgres skips it.
 * `communityId`: every event's (eventsFromCtes), named even when `events` is empty.
 */
export function eventsWithDeliveriesCtes(
	db: Db,
	communityId: number | null,
	events: NewEventRow[],
	now: number,
	channel: string,
) {
	const input = events.map((e) => ({
		id: e.id,
		c: e.communityId,
		e: e.event,
		s: e.source,
		d: e.data,
	}))
	return eventsFromCtes(
		db,
		communityId,
		db`select * from jsonb_to_recordset(${db.json(input as never)}) as i(id text, c int, e text, s text, d jsonb)`,
		now,
		channel,
	)
}

/**
 * eventsWithDeliveriesCtes for the events a caller's statement selects itself: `rows`
 * yields (id, c: community, e: event, s: source, d: data), and may read the statement's
 * other CTEs (only the likes that joined a group notify, say). `communityId`: the one
 * community of every row, named in the webhooks' read so that Citus runs it on that
 * community's shard (DESIGN §21); null for events of several communities (one shard
 * cannot hold them: plain Postgres, or inside acrossCommunities).
 */
export function eventsFromCtes(
	db: Db,
	communityId: number | null,
	rows: PendingQuery<Row[]>,
	now: number,
	channel: string,
) {
	const webhooksOf = communityId === null ? db`` : db`w.community_id = ${communityId} and`
	return db`
		event as (
			insert into events (id, community_id, event, source, data, created_at)
			select i.id, i.c, i.e, i.s, i.d, ${now}
			from (${rows}) as i
			returning id, community_id, event
		), deliveries as (
			insert into webhook_deliveries (webhook_id, event_id, community_id, due_at, created_at, updated_at)
			select w.id, event.id, w.community_id, ${now}, ${now}, ${now}
			from event join webhooks w
				on ${webhooksOf} w.community_id = event.community_id and w.webhook_type = event.event and w.is_active
			returning 1
		), deliveries_notified as (
			select count(*) from (select pg_notify(${channel}, '') from (select 1 from deliveries limit 1) any_delivery) n)`
}

/** The event types a community has webhooks for (inactive ones too: they may replay). */
export async function webhookTypesOf(db: Db, communityId: number): Promise<string[]> {
	const rows =
		await db`select distinct webhook_type from webhooks where community_id = ${communityId}`
	return rows.map((r) => r.webhook_type as string)
}
