import type { Db } from '../../lib/db'
import type { Role } from '../../lib/tokens'

/** A refresh token (alias r) revoked in the last `minutes`. */
const revokedWithin = (db: Db, minutes: number) =>
	db`r.revoked_at is not null and r.revoked_at > now() - make_interval(mins => ${minutes})`

/** What a token's checks need from Postgres when Redis cannot tell them. */
export interface StoredAuth {
	/** The role stored now (null: the user no longer exists). */
	role: Role | null
	/** Rights a CM removed from the user (auth/rights.ts). */
	deniedRights: number[]
	/** The user's logins (refresh-token families) revoked in the last `withinMinutes`. */
	revokedFamilies: string[]
}

/**
 * The role and rights as stored now (a change takes effect without a new token) and the
 * recent revocations. A member who left, was removed or banned has no role: their
 * tokens were revoked, and this holds even should Redis have lost the marks. Each
 * subquery names the community as a value: Citus routes a subquery in the select list to
 * one shard only by its own filter, not by the outer row's `u.community_id`.
 */
export async function findStoredAuth(
	db: Db,
	communityId: number,
	userId: number,
	withinMinutes: number,
): Promise<StoredAuth> {
	const [row] = await db<{ role: Role; denied_rights: number[]; revoked_families: string[] }[]>`
		select u.role, array(
			select d.right_state from member_right_denials d
			where d.community_id = ${communityId} and d.user_id = u.id order by d.right_state
		) as denied_rights, array(
			select distinct r.family_id from refresh_tokens r
			where r.community_id = ${communityId} and r.user_id = u.id and ${revokedWithin(db, withinMinutes)}
		) as revoked_families
		from users u
		where u.community_id = ${communityId} and u.id = ${userId} and not u.is_deleted and u.departed_at is null`
	return {
		role: row?.role ?? null,
		deniedRights: row?.denied_rights ?? [],
		revokedFamilies: row?.revoked_families ?? [],
	}
}

/**
 * Every user's logins revoked in the last `withinMinutes` (the rebuild after a Redis
 * loss): every community's, so `db` must come from acrossCommunities (a named
 * cross-community read, auth/revocation.ts restoreRevocations).
 */
export function findRevokedFamilies(db: Db, withinMinutes: number) {
	return db<{ user_id: number; family_id: string }[]>`
		select distinct r.user_id::float8 as user_id, r.family_id from refresh_tokens r
		where ${revokedWithin(db, withinMinutes)}`
}
