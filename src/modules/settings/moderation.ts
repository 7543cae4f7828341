// The community's moderation settings (GET|PUT /community/settings/moderation, served by
// modules/reports): the report threshold past which a post is held back from everyone,
// and post_moderation — which new posts wait for a CM (off; new_members: a member's first
// N; all). Every new post asks whether it is held, so the settings are cached in Redis
// (keys.moderationSettings), dropped on every change: every process sees a change at once.
import { sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { redis } from '../../lib/redis'
import {
	findModeration,
	type ModerationSettings,
	postsWritten,
	upsertModeration,
} from './moderation-repo'

export type { ModerationSettings, PostModeration } from './moderation-repo'

export async function moderationSettings(communityId: number): Promise<ModerationSettings> {
	const key = keys.moderationSettings(communityId)
	const cached = await redis.get(key)
	if (cached) return JSON.parse(cached) as ModerationSettings
	const settings = await findModeration(sql, communityId)
	await redis.set(key, JSON.stringify(settings), 'EX', 3600)
	return settings
}

export async function setModerationSettings(
	communityId: number,
	change: Partial<ModerationSettings>,
): Promise<ModerationSettings> {
	const settings = { ...(await findModeration(sql, communityId)), ...change }
	await upsertModeration(sql, communityId, settings, Date.now())
	await redis.del(keys.moderationSettings(communityId))
	return settings
}

/** A new post by this member waits for a CM (CMs' and owners' posts never do). */
export async function holdsNewPost(
	communityId: number,
	userId: number,
	isCm: boolean,
): Promise<boolean> {
	if (isCm) return false
	const { post_moderation, post_moderation_first_n } = await moderationSettings(communityId)
	if (post_moderation === 'all') return true
	if (post_moderation === 'off') return false
	return (await postsWritten(sql, communityId, userId)) < post_moderation_first_n
}
