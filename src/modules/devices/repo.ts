// Devices and their push tokens: one row per (community, device).
import type { Db } from '../../lib/db'

export interface DeviceRow {
	device_id: string
	user_id: number
	token: string
	platform: string
}

/** Registers the token; a device already known moves to this user with the new token. */
export async function upsertDevice(
	db: Db,
	d: DeviceRow & { community_id: number },
	now: number,
): Promise<void> {
	await db`
		insert into devices (community_id, device_id, user_id, token, platform, created_at, updated_at)
		values (${d.community_id}, ${d.device_id}, ${d.user_id}, ${d.token}, ${d.platform}, ${now}, ${now})
		on conflict (community_id, device_id) do update set
			user_id = excluded.user_id, token = excluded.token, platform = excluded.platform, updated_at = excluded.updated_at`
}

/** Removes the device's token when it belongs to this user (logout). */
export async function deleteDevice(db: Db, communityId: number, deviceId: string, userId: number) {
	await db`
		delete from devices where community_id = ${communityId} and device_id = ${deviceId} and user_id = ${userId}`
}

/** The user's registered devices (never their tokens), most recently registered first. */
export function listDevices(db: Db, communityId: number, userId: number) {
	return db<{ device_id: string; platform: string; updated_at: number }[]>`
		select device_id, platform, updated_at::float8 from devices
		where community_id = ${communityId} and user_id = ${userId}
		order by updated_at desc, device_id limit 100`
}

/** Removes every device token of the user (a member who left or was removed gets no pushes). */
export async function deleteDevicesOfUser(db: Db, communityId: number, userId: number) {
	await db`delete from devices where community_id = ${communityId} and user_id = ${userId}`
}
