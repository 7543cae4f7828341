// Sessions: initiate (find or create the user), refresh with rotation and reuse
// detection, logout.
import { config } from '../../config'
import { recordEvent } from '../../events/outbox'
import { randomToken, sha256 } from '../../lib/crypto'
import { type Db, sql } from '../../lib/db'
import { forbidden, unauthorized } from '../../lib/errors'
import { newId, newUuid } from '../../lib/ids'
import { signAccessToken } from '../../lib/tokens'
import { feedManager } from '../../timelines'
import { markFamiliesRevoked, markUserRevoked } from '../auth/revocation'
import type { Session } from '../auth/session'
import { findCommunity } from '../projects/repo'
import { communityForApiKey, presentCommunity } from '../projects/service'
import { presentUser, presentUserForWebhook } from '../users/present'
import {
	findUserById,
	findUserByUniqueId,
	insertUser,
	type UserRow,
	updateProfile,
} from '../users/repo'
import {
	insertRefreshToken,
	lockRefreshToken,
	markRotated,
	revokeAllForUser,
	revokeFamily,
} from './repo'

export interface InitiateInput {
	apiKey: string | null
	userUniqueId: string
	userName?: string
	imageUrl?: string
	isGuest?: boolean
	tokenExpiryMinutes?: number
}

export async function issueTokens(db: Db, user: UserRow, familyId = newId(), minutes?: number) {
	const access_token = await signAccessToken(
		{ sub: user.uuid, uid: user.id, cid: user.community_id, role: user.role, fid: familyId },
		minutes,
	)
	const refresh_token = `rt_${randomToken(32)}`
	const expires_at = new Date(Date.now() + config.REFRESH_TOKEN_DAYS * 86_400_000)
	await insertRefreshToken(db, {
		token_hash: sha256(refresh_token),
		family_id: familyId,
		user_id: user.id,
		expires_at,
	})
	return { access_token, refresh_token }
}

async function findOrCreateUser(communityId: number, input: InitiateInput): Promise<UserRow> {
	const existing = await findUserByUniqueId(sql, communityId, input.userUniqueId)
	if (existing) {
		const name = input.userName || existing.name
		const imageUrl = input.imageUrl || existing.image_url
		if (name === existing.name && imageUrl === existing.image_url) return existing
		await updateProfile(sql, existing.id, name, imageUrl)
		// Feeds cache the user's feed form; drop it so the new name shows at once.
		await feedManager.onUsersChanged(communityId, [existing.id])
		return { ...existing, name, image_url: imageUrl }
	}
	const created = await sql.begin(async (tx) => {
		const user = await insertUser(tx, {
			uuid: newUuid(),
			community_id: communityId,
			user_unique_id: input.userUniqueId,
			name: input.userName ?? input.userUniqueId,
			image_url: input.imageUrl ?? '',
			is_guest: input.isGuest ?? false,
			role: 'member',
		})
		if (user) {
			await recordEvent(tx, {
				communityId,
				event: 'profile.created',
				data: { user: presentUserForWebhook(user) },
			})
		}
		return user
	})
	// A concurrent first call created the same user; use theirs.
	return created ?? ((await findUserByUniqueId(sql, communityId, input.userUniqueId)) as UserRow)
}

export async function initiateSession(input: InitiateInput) {
	const community = await communityForApiKey(input.apiKey)
	const user = await findOrCreateUser(community.id, input)
	// Every client app holds the API key: it reaches members and CMs, never the owner
	// (who has no user_unique_id, so this is the second of two locks).
	if (user.role === 'owner') throw forbidden('The community owner signs in with /otp/verify')
	const tokens = await issueTokens(sql, user, newId(), input.tokenExpiryMinutes)
	return { ...tokens, user: presentUser(user), community: presentCommunity(community) }
}

export async function describeSession(userId: number) {
	const user = await findUserById(sql, userId)
	if (!user || user.is_deleted) throw unauthorized('User no longer exists')
	const community = await findCommunity(sql, user.community_id)
	return { user: presentUser(user), community: community ? presentCommunity(community) : null }
}

type RefreshOutcome =
	| { ok: true; tokens: { access_token: string; refresh_token: string } }
	| { ok: false; reason: string; revoked?: { userId: number; familyId: string } }

export async function refreshSession(refreshToken: string | null) {
	if (!refreshToken) throw unauthorized('Missing refresh token')
	// The outcome is decided inside the transaction but thrown after it, so that a
	// revoked family stays revoked (a throw inside would roll the revocation back).
	const outcome = await sql.begin(async (tx): Promise<RefreshOutcome> => {
		const row = await lockRefreshToken(tx, sha256(refreshToken))
		if (!row) return { ok: false, reason: 'Invalid refresh token' }
		if (row.revoked_at) return { ok: false, reason: 'Refresh token revoked' }
		if (row.rotated_at) {
			await revokeFamily(tx, row.family_id)
			return {
				ok: false,
				reason: 'Refresh token reused; session revoked',
				revoked: { userId: row.user_id, familyId: row.family_id },
			}
		}
		if (row.expires_at.getTime() < Date.now()) return { ok: false, reason: 'Refresh token expired' }
		const user = await findUserById(tx, row.user_id)
		if (!user || user.is_deleted) return { ok: false, reason: 'User no longer exists' }
		await markRotated(tx, row.token_hash)
		return { ok: true, tokens: await issueTokens(tx, user, row.family_id) }
	})
	if (!outcome.ok) {
		// After the commit: the family's access tokens stop too, within the request.
		if (outcome.revoked)
			await markFamiliesRevoked(outcome.revoked.userId, [outcome.revoked.familyId])
		throw unauthorized(outcome.reason)
	}
	return outcome.tokens
}

/**
 * Ends the caller's login (the access token's family) and the given refresh token's,
 * or every login of the user when no refresh token is given; their access tokens stop
 * at once.
 */
export async function logout(session: Session, refreshToken: string | undefined): Promise<void> {
	const own = session.familyId ? [session.familyId] : []
	if (!refreshToken) {
		const families = await revokeAllForUser(sql, session.userId)
		return markUserRevoked(session.userId, [...new Set([...own, ...families])])
	}
	const row = await lockRefreshToken(sql, sha256(refreshToken))
	const families = new Set(own)
	if (row && row.user_id === session.userId) families.add(row.family_id)
	for (const family of families) await revokeFamily(sql, family)
	await markFamiliesRevoked(session.userId, [...families])
}
