// Refresh tokens, stored as hashes and grouped in families (one family per login).
import type { PendingQuery, Row } from 'postgres'
import { acrossCommunities, type Db } from '../../lib/db'
import { type UserRow, userColumns } from '../users/repo'

export interface RefreshTokenRow {
	community_id: number
	token_hash: string
	family_id: string
	user_id: number
	expires_at: Date
	rotated_at: Date | null
	revoked_at: Date | null
}

type NewRefreshToken = Omit<RefreshTokenRow, 'rotated_at' | 'revoked_at'>

export async function insertRefreshToken(db: Db, row: NewRefreshToken) {
	await db`insert into refresh_tokens ${db(row, 'community_id', 'token_hash', 'family_id', 'user_id', 'expires_at')}`
}

/**
 * An app launch of a customer id that may already be a user, with its refresh token.
 * The statements below take one community's launches (one Citus shard, DESIGN §21).
 */
export interface Launch {
	communityId: number
	userUniqueId: string
	token_hash: string
	family_id: string
	expires_at: Date
}

/** A returning user found by a launch; `banned`: refused, no token was stored. */
export type LaunchedUser = UserRow & { banned: boolean }

/**
 * Launches of returning users in ONE statement: finds each launch's user by its
 * customer id and stores the refresh token of every one found (never for an owner or a
 * banned member); a member who left or was removed is a member again. Answers by token
 * hash; a launch whose customer id is no user yet gets no row and stores nothing.
 */
export async function findUsersAndStoreTokens(
	db: Db,
	communityId: number,
	launches: Launch[],
): Promise<Map<string, LaunchedUser>> {
	const rows = await db<(LaunchedUser & { launch_token: string })[]>`
		with found as (
			select l.launch_token, l.launch_family, l.launch_expires, u.*
			from unnest(${launches.map((l) => l.userUniqueId)}::text[],
				${launches.map((l) => l.token_hash)}::text[], ${launches.map((l) => l.family_id)}::text[],
				${launches.map((l) => l.expires_at.toISOString())}::timestamptz[])
				as l(launch_unique_id, launch_token, launch_family, launch_expires)
			join users u on u.community_id = ${communityId} and u.user_unique_id = l.launch_unique_id
		), stored as (
			insert into refresh_tokens (community_id, token_hash, family_id, user_id, expires_at)
			select ${communityId}::int, launch_token, launch_family, id, launch_expires from found
			where role <> 'owner' and departure is distinct from 'banned'
		), rejoined as (
			update users set departed_at = null, departure = null, departed_by = null
			where community_id = ${communityId}
				and id in (select id from found where departure in ('left', 'removed'))
		)
		select launch_token, departure is not distinct from 'banned' as banned,
			${userColumns(db)} from found`
	return new Map(rows.map(({ launch_token, ...user }) => [launch_token, user as LaunchedUser]))
}

/** A first launch with its new user's profile and uuid (the insert gives its id) and that user's event. */
export interface NewUserLaunch extends Launch {
	name: string
	imageUrl: string
	isGuest: boolean
	uuid: string
	event_id: string
	/** The event's data as JSON, whose `user.id` the statement fills in with the new id. */
	event_data: string
}

type Fragment = PendingQuery<Row[]>

/**
 * First launches in ONE statement, which commits on its own (no BEGIN, no COMMIT to wait
 * for): inserts the user of every customer id not taken yet — the first launch of an id
 * gives its row, with custom_title '' and is_deleted false as `event_data` has them —
 * stores the refresh token of every launch of an id it created, and writes one event per
 * created user through `events` (webhooks/outbox.ts recordEventsFromCtes, whose
 * `deliveries_notified` the statement reads so that its NOTIFY runs). Answers by token
 * hash; a launch whose id was taken gets no row and stores nothing.
 */
export async function insertFirstLaunches(
	db: Db,
	communityId: number,
	launches: NewUserLaunch[],
	event: string,
	events: (rows: Fragment) => Fragment,
): Promise<Map<string, UserRow>> {
	const column = <K extends keyof NewUserLaunch>(key: K) => launches.map((l) => l[key])
	const rows = await db<(UserRow & { launch_token: string })[]>`
		with launch as (
			select * from unnest(${column('userUniqueId')}::text[],
				${column('token_hash')}::text[], ${column('family_id')}::text[],
				${launches.map((l) => l.expires_at.toISOString())}::timestamptz[], ${column('uuid')}::uuid[],
				${column('name')}::text[], ${column('imageUrl')}::text[], ${db.array(column('isGuest'))}::bool[],
				${column('event_id')}::text[], ${column('event_data')}::text[]) with ordinality
				as l(user_unique_id, token_hash, family_id, expires_at, uuid, name, image_url,
					is_guest, event_id, event_data, n)
		), created as (
			insert into users (uuid, community_id, user_unique_id, name, image_url, custom_title, is_guest, is_deleted, role)
			select distinct on (user_unique_id)
				uuid, ${communityId}::int, user_unique_id, name, image_url, '', is_guest, false, 'member'
			from launch order by user_unique_id, n
			on conflict (community_id, user_unique_id) do nothing
			returning ${userColumns(db)}
		), launched as (
			select l.token_hash, l.family_id, l.expires_at, c.*
			from launch l join created c on c.user_unique_id = l.user_unique_id
		), stored as (
			insert into refresh_tokens (community_id, token_hash, family_id, user_id, expires_at)
			select ${communityId}::int, token_hash, family_id, id, expires_at from launched
		), ${events(db`
			select l.event_id as id, ${communityId}::int as c, ${event}::text as e, 'feed' as s,
				jsonb_set(l.event_data::jsonb, '{user,id}', to_jsonb(c.id)) as d
			from created c join launch l on l.uuid = c.uuid`)}
		select token_hash as launch_token, ${userColumns(db)} from launched, deliveries_notified`
	return new Map(rows.map(({ launch_token, ...user }) => [launch_token, user as UserRow]))
}

/** Locks the row so two concurrent refreshes with one token cannot both rotate it. */
export async function lockRefreshToken(
	db: Db,
	communityId: number,
	tokenHash: string,
): Promise<RefreshTokenRow | null> {
	const [row] = await db<RefreshTokenRow[]>`
		select community_id, token_hash, family_id, user_id::float8 as user_id, expires_at, rotated_at, revoked_at
		from refresh_tokens where community_id = ${communityId} and token_hash = ${tokenHash} for update`
	return row ?? null
}

/**
 * The community of a refresh token issued before tokens carried it (sessions/service.ts
 * newRefreshToken): a named cross-community lookup, by the token alone.
 */
export async function findRefreshTokenCommunity(tokenHash: string): Promise<number | null> {
	const [row] = await acrossCommunities(
		(tx) => tx<{ community_id: number }[]>`
			select community_id from refresh_tokens where token_hash = ${tokenHash}`,
	)
	return row?.community_id ?? null
}

export async function markRotated(db: Db, communityId: number, tokenHash: string): Promise<void> {
	await db`
		update refresh_tokens set rotated_at = now()
		where community_id = ${communityId} and token_hash = ${tokenHash}`
}

export async function revokeFamily(db: Db, communityId: number, familyId: string): Promise<void> {
	await db`
		update refresh_tokens set revoked_at = now()
		where community_id = ${communityId} and family_id = ${familyId} and revoked_at is null`
}

/** Revokes every refresh token of the user; returns the families it ended. */
export async function revokeAllForUser(
	db: Db,
	communityId: number,
	userId: number,
): Promise<string[]> {
	const rows = await db<{ family_id: string }[]>`
		update refresh_tokens set revoked_at = now()
		where community_id = ${communityId} and user_id = ${userId} and revoked_at is null
		returning family_id`
	return [...new Set(rows.map((row) => row.family_id))]
}

/**
 * Communities holding refresh tokens that expired more than `graceMinutes` ago: a read
 * across communities (no lock) for the cleanup, which deletes per community.
 */
export async function communitiesWithExpiredRefreshTokens(graceMinutes: number): Promise<number[]> {
	const rows = await acrossCommunities(
		(tx) => tx<{ community_id: number }[]>`
			select distinct community_id from refresh_tokens
			where expires_at < now() - make_interval(mins => ${graceMinutes})`,
	)
	return rows.map((r) => r.community_id)
}

/**
 * Deletes up to `limit` of a community's refresh tokens that expired more than
 * `graceMinutes` ago; returns how many. In batches, so a large backlog never holds one
 * long statement.
 */
export async function deleteExpiredRefreshTokens(
	db: Db,
	communityId: number,
	graceMinutes: number,
	limit: number,
): Promise<number> {
	const rows = await db`
		delete from refresh_tokens where community_id = ${communityId} and token_hash in (
			select token_hash from refresh_tokens
			where community_id = ${communityId} and expires_at < now() - make_interval(mins => ${graceMinutes})
			limit ${limit})
		returning 1`
	return rows.length
}
