// Widget routes: POST /widget, PUT /widget/:widget_id, GET /widget (search with the
// literal double quotes the spec requires).
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { WidgetBody, WidgetParams, WidgetQuery } from './model'
import { createWidget, editWidget, listWidgets } from './service'

export const widgetsModule = new Elysia({ name: 'widgets' })
	.use(authPlugin)
	.post('/widget', async ({ session, body }) => ok(await createWidget(session, body)), {
		auth: 'member',
		body: WidgetBody,
		detail: { summary: 'Create a widget (one per metadata.company_id)', tags: ['widgets'] },
	})
	.put(
		'/widget/:widget_id',
		async ({ session, params, body }) => ok(await editWidget(session, params.widget_id, body)),
		{
			auth: 'member',
			params: WidgetParams,
			body: WidgetBody,
			detail: { summary: 'Edit a widget (its creator or a CM)', tags: ['widgets'] },
		},
	)
	.get('/widget', async ({ session, query }) => ok(await listWidgets(session, query)), {
		auth: 'member',
		query: WidgetQuery,
		detail: {
			summary: 'Find widgets: search_key="metadata.company_id"&search_value="<id>"',
			tags: ['widgets'],
		},
	})
