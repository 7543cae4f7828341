// SQL of connection requests and connections. A connection row (user_id,
// connection_id) means user_id sees connection_id's posts.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../../lib/db'
import { paged } from '../../lib/paged'
import { blockedBetween } from '../../lib/sql-rules'
import type { ConnectionType } from './model'

export interface RequestRow {
	request_by: number
	request_to: number
	connection_type: ConnectionType
	created_at: number
	updated_at: number
}

export interface ConnectionRow {
	user_id: number
	connection_id: number
	connection_type: ConnectionType
	created_at: number
}

/**
 * Serialises requests between the same two users (until the transaction ends) so checks
 * and writes agree. The key is a 64-bit hash of the pair: user ids are bigint, past the
 * two-int4 form of the lock (a rare collision only serialises two unrelated pairs).
 */
export async function lockPair(tx: Db, a: number, b: number): Promise<void> {
	const [low, high] = [a, b].sort((x, y) => x - y)
	await tx`select pg_advisory_xact_lock(hashtextextended(${`connection:${low}:${high}`}, 0))`
}

const requestColumns = (db: Db) => db`
	request_by::float8 as request_by, request_to::float8 as request_to, connection_type,
	created_at::float8 as created_at, updated_at::float8 as updated_at`

export async function findRequest(
	db: Db,
	communityId: number,
	by: number,
	to: number,
): Promise<RequestRow | null> {
	const [row] = await db<RequestRow[]>`
		select ${requestColumns(db)} from connection_requests
		where community_id = ${communityId} and request_by = ${by} and request_to = ${to}`
	return row ?? null
}

/** Inserts the request; false when one already exists (duplicates are refused, not merged). */
export async function insertRequest(
	db: Db,
	communityId: number,
	by: number,
	to: number,
	type: ConnectionType,
	now: number,
) {
	const rows = await db`
		insert into connection_requests (community_id, request_by, request_to, connection_type, created_at, updated_at)
		values (${communityId}, ${by}, ${to}, ${type}, ${now}, ${now})
		on conflict do nothing returning 1`
	return rows.length === 1
}

export async function deleteRequest(
	db: Db,
	communityId: number,
	by: number,
	to: number,
): Promise<boolean> {
	const rows = await db`
		delete from connection_requests
		where community_id = ${communityId} and request_by = ${by} and request_to = ${to} returning 1`
	return rows.length === 1
}

export async function deleteRequestsBetween(
	db: Db,
	communityId: number,
	a: number,
	b: number,
): Promise<number> {
	const rows = await db`
		delete from connection_requests
		where community_id = ${communityId}
			and ((request_by = ${a} and request_to = ${b}) or (request_by = ${b} and request_to = ${a})) returning 1`
	return rows.length
}

export async function isConnected(
	db: Db,
	communityId: number,
	userId: number,
	connectionId: number,
): Promise<boolean> {
	const [row] = await db`
		select 1 from connections
		where community_id = ${communityId} and user_id = ${userId} and connection_id = ${connectionId}`
	return Boolean(row)
}

/**
 * Inserts the (follower → followed) rows; existing rows are kept. The same statement
 * marks the followed users ever followed (users.ever_followed), together, under a
 * `for no key update` lock taken in id order: the statement writing new posts locks
 * them the same way, so a post and a follow never miss each other
 * (migrations/0065_ever_followed.sql says how).
 */
export async function insertConnections(
	db: Db,
	communityId: number,
	pairs: [number, number][],
	type: ConnectionType,
	now: number,
): Promise<void> {
	await db`
		with added as (
			insert into connections (community_id, user_id, connection_id, connection_type, created_at)
			select ${communityId}, p.user_id, p.connection_id, ${type}, ${now}
			from unnest(${pairs.map((p) => p[0])}::int8[], ${pairs.map((p) => p[1])}::int8[]) as p(user_id, connection_id)
			on conflict do nothing
			returning connection_id),
		${markFollowed(db, communityId, db`select connection_id from added`)}
		select 1`
}

/**
 * The CTE `followed`: marks these users of the community (`ids`, a query of user ids)
 * ever followed, locking those not yet marked `for no key update` in id order.
 */
export function markFollowed(db: Db, communityId: number, ids: PendingQuery<Row[]>) {
	return db`
		followed as (
			update users u set ever_followed = true
			from (select id from users where community_id = ${communityId} and id in (${ids}) and not ever_followed
				order by id for no key update) f
			where u.community_id = ${communityId} and u.id = f.id)`
}

export async function deleteConnectionsBetween(
	db: Db,
	communityId: number,
	a: number,
	b: number,
): Promise<number> {
	const rows = await db`
		delete from connections
		where community_id = ${communityId}
			and ((user_id = ${a} and connection_id = ${b}) or (user_id = ${b} and connection_id = ${a})) returning 1`
	return rows.length
}

/**
 * The member's accepted connections: rows where the member follows someone, plus
 * one_way rows where someone follows the member (a two_way pair is listed once, from
 * the member's side).
 */
export function listAccepted(
	db: Db,
	communityId: number,
	memberId: number,
	limit: number,
	offset: number,
) {
	return paged<ConnectionRow>(db, {
		columns: db`user_id::float8 as user_id, connection_id::float8 as connection_id, connection_type,
			created_at::float8 as created_at`,
		from: db`from connections
			where community_id = ${communityId}
				and (user_id = ${memberId} or (connection_id = ${memberId} and connection_type = 'one_way'))`,
		orderBy: db`created_at desc, user_id, connection_id`,
		limit,
		offset,
	})
}

export function listPending(
	db: Db,
	communityId: number,
	memberId: number,
	limit: number,
	offset: number,
) {
	return paged<RequestRow>(db, {
		columns: requestColumns(db),
		from: db`from connection_requests
			where community_id = ${communityId} and (request_to = ${memberId} or request_by = ${memberId})`,
		orderBy: db`created_at desc, request_by, request_to`,
		limit,
		offset,
	})
}

/** A block stands between the two users (either blocked the other). */
export async function isBlockedBetween(
	db: Db,
	communityId: number,
	a: number,
	b: number,
): Promise<boolean> {
	const [row] = await db`select ${blockedBetween(db, a, b, communityId)} as blocked`
	return row?.blocked === true
}

/**
 * Ends every connection and connection request of the user (a member leaving the
 * community); returns the members they were connected with, for the feeds.
 */
export async function deleteAllConnectionsOf(
	db: Db,
	communityId: number,
	userId: number,
): Promise<number[]> {
	await db`
		delete from connection_requests
		where community_id = ${communityId} and (request_by = ${userId} or request_to = ${userId})`
	const rows = await db<{ peer: number }[]>`
		delete from connections
		where community_id = ${communityId} and (user_id = ${userId} or connection_id = ${userId})
		returning (case when user_id = ${userId} then connection_id else user_id end)::float8 as peer`
	return [...new Set(rows.map((row) => row.peer))]
}
