// SQL of moderation_settings: the report threshold and which new posts wait for a CM.
import type { Db } from '../../lib/db'

export type PostModeration = 'off' | 'new_members' | 'all'

export interface ModerationSettings {
	auto_hide_after_reports: number
	post_moderation: PostModeration
	post_moderation_first_n: number
}

export const DEFAULT_MODERATION: ModerationSettings = {
	auto_hide_after_reports: 3,
	post_moderation: 'off',
	post_moderation_first_n: 1,
}

export async function findModeration(db: Db, communityId: number): Promise<ModerationSettings> {
	const [row] = await db<ModerationSettings[]>`
		select auto_hide_after_reports, post_moderation, post_moderation_first_n
		from moderation_settings where community_id = ${communityId}`
	return row ?? DEFAULT_MODERATION
}

export async function upsertModeration(
	db: Db,
	communityId: number,
	settings: ModerationSettings,
	now: number,
) {
	await db`
		insert into moderation_settings (community_id, auto_hide_after_reports, post_moderation,
			post_moderation_first_n, updated_at)
		values (${communityId}, ${settings.auto_hide_after_reports}, ${settings.post_moderation},
			${settings.post_moderation_first_n}, ${now})
		on conflict (community_id) do update set
			auto_hide_after_reports = excluded.auto_hide_after_reports,
			post_moderation = excluded.post_moderation,
			post_moderation_first_n = excluded.post_moderation_first_n, updated_at = excluded.updated_at`
}

/** Posts the user wrote that count toward new_members' first N (pending ones do not). */
export async function postsWritten(db: Db, communityId: number, userId: number): Promise<number> {
	const [row] = await db<{ n: number }[]>`
		select count(*)::int as n from posts
		where community_id = ${communityId} and user_id = ${userId} and held is distinct from 'pending'`
	return row?.n ?? 0
}
