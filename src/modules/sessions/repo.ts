// Refresh tokens, stored as hashes and grouped in families (one family per login).
import type { Db } from '../../lib/db'

export interface RefreshTokenRow {
	token_hash: string
	family_id: string
	user_id: number
	expires_at: Date
	rotated_at: Date | null
	revoked_at: Date | null
}

export async function insertRefreshToken(
	db: Db,
	row: Omit<RefreshTokenRow, 'rotated_at' | 'revoked_at'>,
) {
	await db`insert into refresh_tokens ${db(row, 'token_hash', 'family_id', 'user_id', 'expires_at')}`
}

/** Locks the row so two concurrent refreshes with one token cannot both rotate it. */
export async function lockRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenRow | null> {
	const [row] = await db<RefreshTokenRow[]>`
		select token_hash, family_id, user_id, expires_at, rotated_at, revoked_at
		from refresh_tokens where token_hash = ${tokenHash} for update`
	return row ?? null
}

export async function markRotated(db: Db, tokenHash: string): Promise<void> {
	await db`update refresh_tokens set rotated_at = now() where token_hash = ${tokenHash}`
}

export async function revokeFamily(db: Db, familyId: string): Promise<void> {
	await db`update refresh_tokens set revoked_at = now() where family_id = ${familyId} and revoked_at is null`
}

/** Revokes every refresh token of the user; returns the families it ended. */
export async function revokeAllForUser(db: Db, userId: number): Promise<string[]> {
	const rows = await db<{ family_id: string }[]>`
		update refresh_tokens set revoked_at = now() where user_id = ${userId} and revoked_at is null
		returning family_id`
	return [...new Set(rows.map((row) => row.family_id))]
}
