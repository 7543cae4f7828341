// POST /sdk/initiate, the app launch: finds or creates the user of a customer id and
// starts a login. A returning user costs the API key's cached project, ONE statement
// shared with the launches that arrive at the same moment (lib/coalesce.ts: each
// user found by its customer id and its refresh token stored, one commit for all; the
// launches of one community share it, so that it runs on one Citus shard) and
// one signature; a first-time user one statement more (the user, its profile.created
// event and its refresh token; first-launch.ts), shared with the first launches that
// arrive with it.
import { coalesce } from '../../lib/coalesce'
import { sql } from '../../lib/db'
import { forbidden } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { feedManager } from '../../timelines'
import { announceStats } from '../dashboard/stats-live'
import { communityForApiKey, presentCommunity } from '../projects/service'
import { presentUser } from '../users/present'
import { type UserRow, updateProfile } from '../users/repo'
import { firstLaunches } from './first-launch'
import { findUsersAndStoreTokens, type Launch, type LaunchedUser } from './repo'
import { newRefreshToken, signAccessTokenFor } from './service'

export interface InitiateInput {
	apiKey: string | null
	userUniqueId: string
	userName?: string
	imageUrl?: string
	isGuest?: boolean
	tokenExpiryMinutes?: number
}

/** A banned member's customer id (members/departure.ts) starts no session. */
export const BANNED = 'This member is banned from the community'

/** Launches of existing users of one community, found and given their refresh token together. */
const returning = coalesce<Launch, LaunchedUser | null>({
	group: (launch) => launch.communityId,
	async together(launches) {
		const found = await findUsersAndStoreTokens(sql, (launches[0] as Launch).communityId, launches)
		return launches.map((launch) => found.get(launch.token_hash) ?? null)
	},
})

export async function initiateSession(input: InitiateInput) {
	const community = await communityForApiKey(input.apiKey)
	const { refresh_token, token_hash, expires_at } = newRefreshToken(community.id)
	const launch: Launch = {
		communityId: community.id,
		userUniqueId: input.userUniqueId,
		token_hash,
		family_id: newId(),
		expires_at,
	}
	const found = await returning.run(launch)
	if (found?.banned) throw forbidden(BANNED)
	const user = found ? await keepProfileCurrent(found, input) : await firstLaunch(launch, input)
	// Every client app holds the API key: it reaches members and CMs, never the owner
	// (who has no user_unique_id, so this is the second of two locks; no refresh token
	// was stored for one either).
	if (user.role === 'owner') throw forbidden('The community owner signs in with /otp/verify')
	const access_token = await signAccessTokenFor(user, launch.family_id, input.tokenExpiryMinutes)
	return {
		access_token,
		refresh_token,
		user: presentUser(user),
		community: presentCommunity(community),
		app_access: true,
		has_answers: true,
	}
}

/** A new name or image given at launch is stored; feeds drop their copy of the user. */
async function keepProfileCurrent(existing: UserRow, input: InitiateInput): Promise<UserRow> {
	const name = input.userName || existing.name
	const imageUrl = input.imageUrl || existing.image_url
	if (name === existing.name && imageUrl === existing.image_url) return existing
	await updateProfile(sql, existing.community_id, existing.id, name, imageUrl)
	// Feeds cache the user's feed form; drop it so the new name shows at once.
	await feedManager.onUsersChanged(existing.community_id, [existing.id])
	return { ...existing, name, image_url: imageUrl }
}

/** Creates the user (with its profile.created event and the launch's refresh token). */
async function firstLaunch(launch: Launch, input: InitiateInput): Promise<UserRow> {
	const created = await firstLaunches.run({
		...launch,
		name: input.userName ?? input.userUniqueId,
		imageUrl: input.imageUrl ?? '',
		isGuest: input.isGuest ?? false,
	})
	if (created) {
		announceStats(created.community_id, 'member.joined')
		return created
	}
	// A concurrent first call created the same user: this launch is a returning one (as
	// before, the winner's name and image stand).
	const found = await returning.run(launch)
	if (!found) throw new Error(`user ${launch.userUniqueId} neither created nor found`)
	if (found.banned) throw forbidden(BANNED)
	return found
}
