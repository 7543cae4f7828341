// Device registration for pushes: one token per device, and a device re-registered by
// another user moves to that user (a shared phone must not push the former user's
// notifications). Logging out on a device removes its token.
import { sql } from '../../lib/db'
import { badRequest } from '../../lib/errors'
import type { Session } from '../auth/plugin'
import { type PlatformCode, platformCodes } from './model'
import { deleteDevice, upsertDevice } from './repo'

function platformOf(code: string | undefined): PlatformCode {
	const platform = code?.trim().toLowerCase()
	if (!platform || !(platformCodes as readonly string[]).includes(platform))
		throw badRequest(`x-platform-code must be one of ${platformCodes.join(', ')}`)
	return platform as PlatformCode
}

export async function registerDevice(
	session: Session,
	input: { token: string; deviceId: string | undefined; platformCode: string | undefined },
): Promise<void> {
	const deviceId = input.deviceId?.trim()
	if (!deviceId) throw badRequest('x-device-id is required')
	if (deviceId.length > 200) throw badRequest('x-device-id is longer than 200 characters')
	const token = input.token.trim()
	if (token === '') throw badRequest('token is required')
	await upsertDevice(
		sql,
		{
			community_id: session.communityId,
			device_id: deviceId,
			user_id: session.userId,
			token,
			platform: platformOf(input.platformCode),
		},
		Date.now(),
	)
}

/** Logout on a device: its token is gone (only the caller's own device). */
export async function forgetDevice(session: Session, deviceId: string | undefined): Promise<void> {
	const id = deviceId?.trim()
	if (id) await deleteDevice(sql, session.communityId, id, session.userId)
}
