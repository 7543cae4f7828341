// SQL of push sending: relaying fresh rows to the schedule, loading what a send needs,
// the `sending` claim (guarded by status, so a row is handed to the provider at most
// once), recording outcomes in batches, dropping dead tokens and marking credentials.
import { acrossCommunities, type Db } from '../lib/db'
import { claimPerCommunity } from '../lib/per-community'

export interface ScheduledRow {
	id: string
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
						select community_id from push_deliveries where status = 'pending' and not queued
						order by id limit ${limit}) oldest`
			).map((r) => r.community_id),
		(communityId, left) => db<ScheduledRow[]>`
			update push_deliveries set queued = true, updated_at = ${Date.now()}
			where community_id = ${communityId} and id in (
				select id from push_deliveries
				where community_id = ${communityId} and status = 'pending' and not queued
				order by id limit ${left} for update skip locked)
			returning id, community_id, due_at::float8 as due_at`,
	)
}

/**
 * Open deliveries (pending and queued, or sending) of every community in id order after
 * `afterId` (the reconciler's page: a read across communities, no lock).
 */
export function openPage(afterId: string, limit: number) {
	return acrossCommunities(
		(tx) => tx<(ScheduledRow & { status: string; updated_at: number })[]>`
			select id, community_id, status, due_at::float8 as due_at, updated_at::float8 as updated_at
			from push_deliveries
			where status in ('pending', 'sending') and (queued or status = 'sending') and id > ${afterId}
			order by id limit ${limit}`,
	)
}

export interface SendRow {
	id: string
	community_id: number
	status: string
	attempt: number
	due_at: number
	payload: Record<string, string>
	device_id: string
	/** null when the device is gone or now belongs to someone else */
	token: string | null
	platform: string | null
	project_id: string
	sealed_file: string | null
	failing_reason: string | null
}

export function loadForSend(db: Db, communityId: number, ids: string[]) {
	return db<SendRow[]>`
		select p.id, p.community_id, p.status, p.attempt, p.due_at::float8 as due_at, p.payload, p.device_id, d.token, d.platform,
			c.project_id, k.sealed_file, k.failing_reason
		from push_deliveries p
		join communities c on c.id = p.community_id
		left join devices d on d.community_id = p.community_id and d.device_id = p.device_id and d.user_id = p.recipient_id
		left join push_credentials k on k.project_id = c.project_id
		where p.community_id = ${communityId} and p.id in ${db(ids)}`
}

/** The claim before a send: only rows still pending become sending (and are returned). */
export async function markSending(db: Db, communityId: number, ids: string[]): Promise<string[]> {
	if (ids.length === 0) return []
	const rows = await db<{ id: string }[]>`
		update push_deliveries set status = 'sending', attempt = attempt + 1, updated_at = ${Date.now()}
		where community_id = ${communityId} and id in ${db(ids)} and status = 'pending'
		returning id`
	return rows.map((r) => r.id)
}

export type FinalStatus = 'pending' | 'sent' | 'failed' | 'unknown' | 'discarded'

export interface PushOutcome {
	communityId: number
	id: string
	status: FinalStatus
	/** next try (status pending) */
	dueAt: number | null
	error: string | null
}

/** Records outcomes of one community's rows this worker holds as sending (or finds stale), one statement. */
export async function recordOutcomes(
	db: Db,
	communityId: number,
	outcomes: PushOutcome[],
	from: string[],
) {
	if (outcomes.length === 0) return
	const now = Date.now()
	await db`
		update push_deliveries p set status = i.status, due_at = i.due_at, error = nullif(i.error, ''), updated_at = ${now}
		from unnest(
			${db.array(outcomes.map((o) => o.id))}::text[], ${db.array(outcomes.map((o) => o.status))}::text[],
			${db.array(outcomes.map((o) => o.dueAt ?? now))}::bigint[], ${db.array(outcomes.map((o) => o.error ?? ''))}::text[]
		) as i(id, status, due_at, error)
		where p.community_id = ${communityId} and p.id = i.id and p.status = any(${db.array(from)}::text[])`
}

/** The provider said this token is dead: the device forgets it (unless re-registered meanwhile). */
export async function deleteToken(db: Db, communityId: number, deviceId: string, token: string) {
	await db`
		delete from devices where community_id = ${communityId} and device_id = ${deviceId} and token = ${token}`
}

export async function markCredentialsFailing(db: Db, projectId: string, reason: string) {
	await db`
		update push_credentials set failing_reason = ${reason}, failing_since = ${Date.now()}
		where project_id = ${projectId} and failing_reason is null`
}
