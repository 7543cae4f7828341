// Notification feed routes (DESIGN section 9): the feed, the unread count, marking read
// (one or all; bodies may be form-urlencoded) and custom activities by a CM.
import { Elysia, t } from 'elysia'
import { ok } from '../../lib/envelope'
import { okJson } from '../../lib/raw-json'
import { authPlugin } from '../auth/plugin'
import { ActivityQuery, CustomActivityBody, MarkReadBody } from '../notifications/model'
import { createCustomActivity } from './custom'
import {
	activityFeedJson,
	markActivityRead,
	markAllActivitiesRead,
	startActivityEarly,
	unreadActivities,
	wantsV1,
} from './service'

const tags = ['notifications']
const done = { success: true as const, error_message: null }

export const notificationsModule = new Elysia({ name: 'notifications' })
	.use(authPlugin)
	.get(
		'/feed/user/activity',
		async ({ session, query, request }) =>
			okJson(
				await activityFeedJson(request, session, query.page, query.page_size, wantsV1(request)),
			),
		{
			auth: { needed: 'member', early: startActivityEarly },
			query: ActivityQuery,
			detail: { summary: 'The caller’s notification feed, newest group first', tags },
		},
	)
	.get(
		'/feed/user/activity/unread_count',
		async ({ session }) => ok(await unreadActivities(session)),
		{
			auth: 'member',
			detail: { summary: 'How many activity groups are unread (data.count)', tags },
		},
	)
	.post(
		'/feed/user/activity/mark_read',
		async ({ session }) => {
			await markAllActivitiesRead(session)
			return done
		},
		{ auth: 'member', body: MarkReadBody, detail: { summary: 'Mark every activity read', tags } },
	)
	.post(
		'/feed/user/activity/:activity_id/mark_read',
		async ({ session, params }) => {
			await markActivityRead(session, params.activity_id)
			return done
		},
		{
			auth: 'member',
			params: t.Object({ activity_id: t.String({ maxLength: 64 }) }),
			body: MarkReadBody,
			detail: { summary: 'Mark one activity read (404 for another user’s)', tags },
		},
	)
	.post(
		'/feed/user/activity',
		async ({ session, body }) => ok(await createCustomActivity(session, body)),
		{
			auth: 'cm',
			body: CustomActivityBody,
			detail: { summary: 'Create a custom activity for recipients (Admin/CM)', tags },
		},
	)
