// Schemas of community settings: feature toggles and the conversation notification state.
import { t } from 'elysia'
import { Int, OkTwice } from '../../lib/response'

export const SettingInput = t.Object({
	setting_type: t.String({ minLength: 1, maxLength: 100 }),
	enabled: t.Boolean(),
	setting_title: t.Optional(t.String({ maxLength: 200 })),
	setting_sub_title: t.Optional(t.String({ maxLength: 500 })),
})
export type SettingInput = typeof SettingInput.static

export const PutSettingsBody = t.Object({
	community_settings: t.Array(SettingInput, { minItems: 1, maxItems: 50 }),
})

export const PutNotificationBody = t.Object({
	noti_state: t.Integer({ minimum: 1, maximum: 3, error: 'noti_state must be 1, 2 or 3' }),
})

export const Setting = t.Object({
	setting_type: t.String(),
	enabled: t.Boolean(),
	setting_title: t.String(),
	setting_sub_title: t.String(),
})
export type Setting = typeof Setting.static

export const SettingsReply = OkTwice({ community_settings: t.Array(Setting) })
export const NotiStateReply = OkTwice({
	community_notification_settings: t.Object({ noti_state: Int({ minimum: 1, maximum: 3 }) }),
})

/** Settings every community has, listed even before a CM touches them. */
export const defaultSettings: Setting[] = [
	{
		setting_type: 'user_connection',
		enabled: false,
		setting_title: 'User connection',
		setting_sub_title: 'Members can connect with each other and see a connection feed',
	},
]

export const defaultNotiState = 1
