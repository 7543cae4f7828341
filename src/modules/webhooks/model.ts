// Request schemas of the webhook routes. Bodies are lenient: unknown fields are ignored.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { Int, Ok, Shape } from '../../lib/response'
import { webhookTypes } from '../../webhooks/types'

const WebhookType = t.Union(webhookTypes.map((name) => t.Literal(name)))
const Url = t.String({ minLength: 1, maxLength: 2048 })

export const CreateWebhookBody = t.Object({
	webhook_type: WebhookType,
	url: Url,
	is_active: t.Optional(t.Boolean()),
})

export const UpdateWebhookBody = t.Object({
	webhook_type: t.Optional(WebhookType),
	url: t.Optional(Url),
	is_active: t.Optional(t.Boolean()),
})

export const WebhookParams = t.Object({ webhook_id: t.String({ maxLength: 100 }) })

export const deliveryStatuses = ['pending', 'delivered', 'failed', 'discarded'] as const
// Literals spelled out: a Union of a mapped array types as never, and t.UnionEnum in a
// query defaults a missing status to its first value.
const DeliveryStatus = t.Union([
	t.Literal('pending'),
	t.Literal('delivered'),
	t.Literal('failed'),
	t.Literal('discarded'),
])

export const DeliveriesQuery = t.Object({
	status: t.Optional(DeliveryStatus),
	...pageFields,
})

// Epoch milliseconds or an ISO 8601 date.
const Instant = t.Union([t.Number({ minimum: 0 }), t.String({ minLength: 1, maxLength: 40 })])

export const ReplayBody = t.Object({
	since: Instant,
	until: t.Optional(Instant),
})

export type ReplayInput = typeof ReplayBody.static
export type DeliveriesInput = typeof DeliveriesQuery.static

const Webhook = Shape({
	id: t.String(),
	webhook_type: t.String({ description: 'an event type of the spec' }),
	url: t.String(),
	is_active: t.Boolean(),
	created_at: t.Number(),
	updated_at: t.Number(),
	deactivated_at: t.Union([t.Number(), t.Null()]),
	deactivation_reason: t.Union([t.String(), t.Null()]),
})

export const WebhookReply = Ok(t.Object({ webhook: Webhook }))
export const NewWebhookReply = Ok(
	t.Object({
		webhook: t.Composite([Webhook, t.Object({ secret: t.String({ description: 'shown once' }) })]),
	}),
)
export const WebhooksReply = Ok(t.Object({ webhooks: t.Array(Webhook) }))
export const DeletedWebhookReply = Ok(
	t.Object({ webhook_id: t.String(), deleted: t.Literal(true) }),
)
export const DeliveriesReply = Ok(
	t.Object({
		deliveries: t.Array(
			Shape({
				id: t.String(),
				event_id: t.String(),
				event: t.String(),
				attempt: Int(),
				status: DeliveryStatus,
				status_code: t.Union([Int(), t.Null()]),
				duration_ms: t.Union([t.Number(), t.Null()]),
				error: t.Union([t.String(), t.Null()]),
				created_at: t.Number(),
			}),
		),
		total_count: Int(),
		page: Int(),
		page_size: Int(),
	}),
)
export const ReplayReply = Ok(
	t.Object({ webhook_id: t.String(), replayed: Int(), since: t.Number(), until: t.Number() }),
)

export type CreateWebhook = typeof CreateWebhookBody.static
export type UpdateWebhook = typeof UpdateWebhookBody.static
export type DeliveryStatus = (typeof deliveryStatuses)[number]
