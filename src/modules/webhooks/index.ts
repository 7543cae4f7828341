// Webhook routes (CM or owner): POST|GET /webhook, GET|PATCH|DELETE /webhook/:webhook_id,
// GET /webhook/:webhook_id/deliveries, POST /webhook/:webhook_id/replay.
import { Elysia } from 'elysia'
// Registers the webhook metrics (queue depth read at scrape time) in API processes too.
import '../../webhooks/metrics'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import {
	CreateWebhookBody,
	DeletedWebhookReply,
	DeliveriesQuery,
	DeliveriesReply,
	NewWebhookReply,
	ReplayBody,
	ReplayReply,
	UpdateWebhookBody,
	WebhookParams,
	WebhookReply,
	WebhooksReply,
} from './model'
import {
	createWebhook,
	editWebhook,
	getWebhook,
	listCommunityWebhooks,
	removeWebhook,
	replayWebhook,
	webhookDeliveries,
} from './service'

const tags = ['webhooks']

export const webhooksModule = new Elysia({ name: 'webhooks' })
	.use(authPlugin)
	.post('/webhook', async ({ session, body }) => ok(await createWebhook(session, body)), {
		auth: 'cm',
		response: { 200: NewWebhookReply },
		body: CreateWebhookBody,
		detail: {
			summary: 'Register a webhook; the answer carries its whsec_ signing secret (shown once)',
			tags,
		},
	})
	.get('/webhook', async ({ session }) => ok(await listCommunityWebhooks(session)), {
		auth: 'cm',
		response: { 200: WebhooksReply },
		detail: { summary: "List the community's webhooks", tags },
	})
	.get(
		'/webhook/:webhook_id',
		async ({ session, params }) => ok(await getWebhook(session, params.webhook_id)),
		{
			auth: 'cm',
			response: { 200: WebhookReply },
			params: WebhookParams,
			detail: { summary: 'Read a webhook (with its deactivation reason, if any)', tags },
		},
	)
	.patch(
		'/webhook/:webhook_id',
		async ({ session, params, body }) => ok(await editWebhook(session, params.webhook_id, body)),
		{
			auth: 'cm',
			response: { 200: WebhookReply },
			params: WebhookParams,
			body: UpdateWebhookBody,
			detail: {
				summary: 'Update a webhook; is_active: true reactivates it and clears the failure state',
				tags,
			},
		},
	)
	.delete(
		'/webhook/:webhook_id',
		async ({ session, params }) => ok(await removeWebhook(session, params.webhook_id)),
		{
			auth: 'cm',
			response: { 200: DeletedWebhookReply },
			params: WebhookParams,
			detail: { summary: 'Delete a webhook and its pending deliveries', tags },
		},
	)
	.get(
		'/webhook/:webhook_id/deliveries',
		async ({ session, params, query }) =>
			ok(await webhookDeliveries(session, params.webhook_id, query)),
		{
			auth: 'cm',
			response: { 200: DeliveriesReply },
			params: WebhookParams,
			query: DeliveriesQuery,
			detail: {
				summary: 'The attempt log (status code, duration, error, attempt), newest first',
				tags,
			},
		},
	)
	.post(
		'/webhook/:webhook_id/replay',
		async ({ session, params, body }) => ok(await replayWebhook(session, params.webhook_id, body)),
		{
			auth: 'cm',
			response: { 200: ReplayReply },
			params: WebhookParams,
			body: ReplayBody,
			detail: { summary: 'Resend the events of a time range (new attempts, same event ids)', tags },
		},
	)
