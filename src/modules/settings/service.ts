// Community settings: feature toggles upserted by setting_type, and the default
// notification state of conversations. `isConnectionEnabled` is read on every
// connection call and connection-feed read, so it is cached in Redis and the cache
// is dropped when a CM changes the settings.
import { type Db, sql } from '../../lib/db'
import { keys } from '../../lib/keys'
import { redis } from '../../lib/redis'
import { bumpFeedVersion } from '../../timelines'
import { defaultNotiState, defaultSettings, type Setting, type SettingInput } from './model'
import { findNotiState, findSetting, listSettings, upsertNotiState, upsertSetting } from './repo'

export const USER_CONNECTION = 'user_connection'

export async function getSettings(communityId: number): Promise<Setting[]> {
	const stored = await listSettings(sql, communityId)
	const byType = new Map(defaultSettings.map((s) => [s.setting_type, s]))
	for (const row of stored) byType.set(row.setting_type, row)
	return [...byType.values()]
}

export async function putSettings(communityId: number, inputs: SettingInput[]): Promise<Setting[]> {
	const now = Date.now()
	await sql.begin(async (tx) => {
		for (const input of inputs) {
			const base = defaultSettings.find((s) => s.setting_type === input.setting_type)
			const current = (await findSetting(tx, communityId, input.setting_type)) ?? base
			await upsertSetting(
				tx,
				communityId,
				{
					setting_type: input.setting_type,
					enabled: input.enabled,
					setting_title: input.setting_title ?? current?.setting_title ?? '',
					setting_sub_title: input.setting_sub_title ?? current?.setting_sub_title ?? '',
				},
				now,
			)
		}
	})
	await redis.del(keys.settings(communityId))
	// Kept connection pages stand in for the user_connection check (connection-feed.ts).
	await bumpFeedVersion(communityId)
	return getSettings(communityId)
}

export async function isSettingEnabled(communityId: number, type: string): Promise<boolean> {
	const key = keys.settings(communityId)
	const cached = await redis.hget(key, type)
	if (cached !== null) return cached === '1'
	const row = await findSetting(sql, communityId, type)
	const enabled =
		row?.enabled ?? defaultSettings.find((s) => s.setting_type === type)?.enabled ?? false
	await redis.hset(key, type, enabled ? '1' : '0')
	await redis.expire(key, 3600)
	return enabled
}

export const isConnectionEnabled = (communityId: number) =>
	isSettingEnabled(communityId, USER_CONNECTION)

/** Pass the transaction when inside one: waiting on the pool while holding a connection can deadlock it. */
export async function getNotiState(communityId: number, db: Db = sql): Promise<number> {
	return (await findNotiState(db, communityId)) ?? defaultNotiState
}

export async function putNotiState(communityId: number, notiState: number): Promise<number> {
	await upsertNotiState(sql, communityId, notiState, Date.now())
	return notiState
}
