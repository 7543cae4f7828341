// POST /user/device/push: registers the caller's push token for the device named by
// x-device-id (and x-platform-code: an, ios, fl, rn, rt; derived when a client sends none).
// GET lists the caller's registered devices (feed-js registerDevice() sends a bare GET).
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { DevicePushBody } from './model'
import { myDevices, registerDevice } from './service'

export const devicesModule = new Elysia({ name: 'devices' })
	.use(authPlugin)
	.post(
		'/user/device/push',
		async ({ session, body, headers }) => {
			await registerDevice(session, {
				token: body.token,
				deviceId: headers['x-device-id'] ?? body.device_id,
				platformCode: headers['x-platform-code'],
				userAgent: headers['user-agent'],
			})
			// feed-js's registerDevice reads `data` (an answer without it throws inside the SDK).
			return ok({})
		},
		{
			auth: 'member',
			body: DevicePushBody,
			detail: {
				summary: 'Register the push token of this device (x-device-id) for the caller',
				tags: ['notifications'],
			},
		},
	)
	.get('/user/device/push', async ({ session }) => ok(await myDevices(session)), {
		auth: 'member',
		detail: {
			summary: "The caller's registered devices (ids, platforms, no tokens)",
			tags: ['notifications'],
		},
	})
