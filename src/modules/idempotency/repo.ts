// Idempotency-Key rows: SQL only. A row is claimed (status null) before the handler
// runs and completed with the first answer; an expired row counts as absent.
import { acrossCommunities, type Db } from '../../lib/db'

export interface KeyRef {
	scope: string
	route: string
	key: string
}

export interface KeyRow {
	fingerprint: string
	status: number | null
	sealed_body: string | null
	claim_expired: boolean
}

/** Claims the key for this request; false when a live row (running or answered) already holds it. */
export async function claimKey(
	db: Db,
	ref: KeyRef,
	fingerprint: string,
	claimSeconds: number,
	keepHours: number,
): Promise<boolean> {
	// The time from here, not now(): Citus takes no function in an upsert's WHERE.
	const now = Date.now()
	const rows = await db`
		insert into idempotency_keys (scope, route, key, fingerprint, claimed_until, expires_at)
		values (${ref.scope}, ${ref.route}, ${ref.key}, ${fingerprint},
			${new Date(now + claimSeconds * 1000)}, ${new Date(now + keepHours * 3_600_000)})
		on conflict (scope, route, key) do update set
			fingerprint = excluded.fingerprint, status = null, sealed_body = null,
			claimed_until = excluded.claimed_until, expires_at = excluded.expires_at
		where idempotency_keys.expires_at < ${new Date(now)}
		returning 1`
	return rows.length > 0
}

export async function findKey(db: Db, ref: KeyRef): Promise<KeyRow | null> {
	const [row] = await db<KeyRow[]>`
		select fingerprint, status, sealed_body, claimed_until < now() as claim_expired
		from idempotency_keys
		where scope = ${ref.scope} and route = ${ref.route} and key = ${ref.key} and expires_at >= now()`
	return row ?? null
}

export async function completeKey(
	db: Db,
	ref: KeyRef,
	status: number,
	sealedBody: string,
): Promise<void> {
	await db`
		update idempotency_keys set status = ${status}, sealed_body = ${sealedBody}
		where scope = ${ref.scope} and route = ${ref.route} and key = ${ref.key} and status is null`
}

/** Drops a claim whose answer must not be replayed (a server error): a repeat runs again. */
export async function releaseKey(db: Db, ref: KeyRef): Promise<void> {
	await db`
		delete from idempotency_keys
		where scope = ${ref.scope} and route = ${ref.route} and key = ${ref.key} and status is null`
}

/**
 * The cleanup: expired keys of every scope, so of every shard on Citus (the table is
 * distributed by scope; every other statement here names its scope).
 */
export async function deleteExpiredKeys(): Promise<number> {
	const rows = await acrossCommunities(
		(tx) => tx`delete from idempotency_keys where expires_at < now() returning 1`,
	)
	return rows.length
}
