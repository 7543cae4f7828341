// SQL of community settings and notification settings.
import type { Db } from '../../lib/db'
import type { Setting } from './model'

export async function listSettings(db: Db, communityId: number): Promise<Setting[]> {
	return db<Setting[]>`
		select setting_type, enabled, setting_title, setting_sub_title
		from community_settings where community_id = ${communityId} order by setting_type`
}

export async function findSetting(
	db: Db,
	communityId: number,
	type: string,
): Promise<Setting | null> {
	const [row] = await db<Setting[]>`
		select setting_type, enabled, setting_title, setting_sub_title
		from community_settings where community_id = ${communityId} and setting_type = ${type}`
	return row ?? null
}

export async function upsertSetting(
	db: Db,
	communityId: number,
	setting: Setting,
	now: number,
): Promise<void> {
	await db`
		insert into community_settings (community_id, setting_type, enabled, setting_title, setting_sub_title, updated_at)
		values (${communityId}, ${setting.setting_type}, ${setting.enabled}, ${setting.setting_title},
			${setting.setting_sub_title}, ${now})
		on conflict (community_id, setting_type) do update set
			enabled = excluded.enabled, setting_title = excluded.setting_title,
			setting_sub_title = excluded.setting_sub_title, updated_at = excluded.updated_at`
}

export async function findNotiState(db: Db, communityId: number): Promise<number | null> {
	const [row] =
		await db`select noti_state from community_notification_settings where community_id = ${communityId}`
	return row ? Number(row.noti_state) : null
}

export async function upsertNotiState(
	db: Db,
	communityId: number,
	notiState: number,
	now: number,
): Promise<void> {
	await db`
		insert into community_notification_settings (community_id, noti_state, updated_at)
		values (${communityId}, ${notiState}, ${now})
		on conflict (community_id) do update set noti_state = excluded.noti_state, updated_at = excluded.updated_at`
}
