// Push token registration: the device comes from x-device-id (or the body's device_id),
// the platform from x-platform-code.
import { t } from 'elysia'

export const platformCodes = ['an', 'ios', 'fl', 'rn', 'rt'] as const
export type PlatformCode = (typeof platformCodes)[number]

export const DevicePushBody = t.Object({
	token: t.String({ minLength: 1, maxLength: 4096 }),
	device_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
})
