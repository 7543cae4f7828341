// SQL of moderation_settings: the community's report threshold.
import type { Db } from '../../lib/db'

export const DEFAULT_AUTO_HIDE_AFTER = 3

export async function autoHideAfter(db: Db, communityId: number): Promise<number> {
	const [row] = await db<{ n: number }[]>`
		select auto_hide_after_reports as n from moderation_settings where community_id = ${communityId}`
	return row?.n ?? DEFAULT_AUTO_HIDE_AFTER
}

export async function setAutoHideAfter(db: Db, communityId: number, n: number, now: number) {
	await db`
		insert into moderation_settings (community_id, auto_hide_after_reports, updated_at)
		values (${communityId}, ${n}, ${now})
		on conflict (community_id) do update set
			auto_hide_after_reports = excluded.auto_hide_after_reports, updated_at = excluded.updated_at`
}
