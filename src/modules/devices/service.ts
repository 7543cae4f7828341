// Device registration for pushes: one token per device, and a device re-registered by
// another user moves to that user (a shared phone must not push the former user's
// notifications). Logging out on a device removes its token. feed-js (the web SDK)
// sends no x-platform-code here: the platform is then read from the user agent, and a
// browser or an unknown client is the web platform, rt (DESIGN §16) — never a 400.
import { sql } from '../../lib/db'
import { badRequest } from '../../lib/errors'
import type { Session } from '../auth/plugin'
import { type PlatformCode, platformCodes } from './model'
import { deleteDevice, listDevices, upsertDevice } from './repo'

/** The platform a client without x-platform-code runs on, from its user agent. */
export function derivedPlatform(userAgent: string | undefined): PlatformCode {
	const agent = userAgent ?? ''
	// A browser names the OS it runs on, but its pushes are web pushes.
	if (/^Mozilla\//.test(agent)) return 'rt'
	if (/flutter|dart\//i.test(agent)) return 'fl'
	if (/react-?native/i.test(agent)) return 'rn'
	if (/android|okhttp/i.test(agent)) return 'an'
	if (/iphone|ipad|\bios\b|cfnetwork/i.test(agent)) return 'ios'
	return 'rt'
}

function platformOf(code: string | undefined, userAgent: string | undefined): PlatformCode {
	const platform = code?.trim().toLowerCase()
	if (!platform) return derivedPlatform(userAgent)
	if (!(platformCodes as readonly string[]).includes(platform))
		throw badRequest(`x-platform-code must be one of ${platformCodes.join(', ')}`)
	return platform as PlatformCode
}

export async function registerDevice(
	session: Session,
	input: {
		token: string
		deviceId: string | undefined
		platformCode: string | undefined
		userAgent: string | undefined
	},
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
			platform: platformOf(input.platformCode, input.userAgent),
		},
		Date.now(),
	)
}

/** Logout on a device: its token is gone (only the caller's own device). */
export async function forgetDevice(session: Session, deviceId: string | undefined): Promise<void> {
	const id = deviceId?.trim()
	if (id) await deleteDevice(sql, session.communityId, id, session.userId)
}

/** The caller's devices (feed-js's registerDevice() asks GET /user/device/push): ids and platforms, no tokens. */
export async function myDevices(session: Session) {
	return { devices: await listDevices(sql, session.communityId, session.userId) }
}
