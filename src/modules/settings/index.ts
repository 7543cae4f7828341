// Community settings routes: GET|PUT /community/settings and
// GET|PUT /community/settings/notification/conversation.
import { Elysia } from 'elysia'
import { authPlugin } from '../auth/plugin'
import { NotiStateReply, PutNotificationBody, PutSettingsBody, SettingsReply } from './model'
import { getNotiState, getSettings, putNotiState, putSettings } from './service'

const tags = ['settings']

export const settingsModule = new Elysia({ name: 'settings' })
	.use(authPlugin)
	.get(
		'/community/settings',
		async ({ session }) => {
			const community_settings = await getSettings(session.communityId)
			return {
				success: true,
				error_message: null,
				community_settings,
				data: { community_settings },
			}
		},
		{
			auth: 'member',
			response: { 200: SettingsReply },
			detail: { summary: 'Feature toggles of the community', tags },
		},
	)
	.put(
		'/community/settings',
		async ({ session, body }) => {
			const community_settings = await putSettings(session.communityId, body.community_settings)
			return {
				success: true,
				error_message: null,
				community_settings,
				data: { community_settings },
			}
		},
		{
			auth: 'cm-or-owner',
			body: PutSettingsBody,
			response: { 200: SettingsReply },
			detail: { summary: 'Upsert feature toggles (CM/owner)', tags },
		},
	)
	.get(
		'/community/settings/notification/conversation',
		async ({ session }) => {
			const community_notification_settings = {
				noti_state: await getNotiState(session.communityId),
			}
			return {
				success: true,
				error_message: null,
				community_notification_settings,
				data: { community_notification_settings },
			}
		},
		{
			auth: 'member',
			response: { 200: NotiStateReply },
			detail: { summary: 'Default notification state of conversations', tags },
		},
	)
	.put(
		'/community/settings/notification/conversation',
		async ({ session, body }) => {
			const community_notification_settings = {
				noti_state: await putNotiState(session.communityId, body.noti_state),
			}
			return {
				success: true,
				error_message: null,
				community_notification_settings,
				data: { community_notification_settings },
			}
		},
		{
			auth: 'cm-or-owner',
			body: PutNotificationBody,
			response: { 200: NotiStateReply },
			detail: {
				summary:
					'Set the notification state (1 all, 2 mentions and replies, 3 DMs, mentions, polls)',
				tags,
			},
		},
	)
