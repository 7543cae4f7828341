// Report routes (feed-js ModerationClient, chat-js getReportTags and pushReport):
// GET|POST /community/report/tag, DELETE /community/report/tag/:tag_id,
// POST|GET|PATCH /community/report, GET|PUT /community/settings/moderation.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import {
	CloseBody,
	ModerationSettingsBody,
	NewTagBody,
	QueueQuery,
	ReportBody,
	TagParams,
	TagsQuery,
} from './model'
import {
	closeReports,
	fileReport,
	getModerationSettings,
	getQueue,
	putModerationSettings,
} from './service'
import { addTag, getTags, removeTag } from './tags'

const tags = ['moderation']

export const reportsModule = new Elysia({ name: 'reports' })
	.use(authPlugin)
	.get(
		'/community/report/tag',
		async ({ session, query }) => ok(await getTags(session, query.entity_type ?? query.type)),
		{
			auth: 'member',
			query: TagsQuery,
			detail: { summary: 'Report tags, of one entity type or all', tags },
		},
	)
	.post('/community/report/tag', async ({ session, body }) => ok(await addTag(session, body)), {
		auth: 'cm-or-owner',
		body: NewTagBody,
		detail: { summary: 'Add a report tag for an entity type (CM)', tags },
	})
	.delete(
		'/community/report/tag/:tag_id',
		async ({ session, params }) => ok(await removeTag(session, params.tag_id)),
		{
			auth: 'cm-or-owner',
			params: TagParams,
			detail: { summary: 'Remove a report tag (CM); reports filed under it keep it', tags },
		},
	)
	.post('/community/report', async ({ session, body }) => ok(await fileReport(session, body)), {
		auth: 'member',
		body: ReportBody,
		detail: {
			summary: 'Report a post, comment, reply, conversation, chatroom or member',
			tags,
		},
	})
	.get('/community/report', async ({ session, query }) => ok(await getQueue(session, query)), {
		auth: 'cm-or-owner',
		query: QueueQuery,
		detail: { summary: 'The review queue: reported entities with their reports (CM)', tags },
	})
	.patch('/community/report', async ({ session, body }) => ok(await closeReports(session, body)), {
		auth: 'cm-or-owner',
		body: CloseBody,
		detail: { summary: "Close reports with an action (the SDK's LMFeedReportStatus)", tags },
	})
	.get(
		'/community/settings/moderation',
		async ({ session }) => ok(await getModerationSettings(session)),
		{
			auth: 'member',
			detail: {
				summary:
					'Moderation settings: auto_hide_after_reports, post_moderation, post_moderation_first_n',
				tags,
			},
		},
	)
	.put(
		'/community/settings/moderation',
		async ({ session, body }) => ok(await putModerationSettings(session, body)),
		{
			auth: 'cm-or-owner',
			body: ModerationSettingsBody,
			detail: {
				summary: 'Set auto_hide_after_reports, post_moderation, post_moderation_first_n (CM)',
				tags,
			},
		},
	)
