// Request schemas of the webhook routes. Bodies are lenient: unknown fields are ignored.
import { t } from 'elysia'
import { webhookTypes } from '../../events/types'
import { pageFields } from '../../lib/paging'

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

export const DeliveriesQuery = t.Object({
	status: t.Optional(t.Union(deliveryStatuses.map((s) => t.Literal(s)))),
	...pageFields,
})

// Epoch milliseconds or an ISO 8601 date.
const Instant = t.Union([t.Number({ minimum: 0 }), t.String({ minLength: 1, maxLength: 40 })])

export const ReplayBody = t.Object({
	since: Instant,
	until: t.Optional(Instant),
})

export type CreateWebhook = typeof CreateWebhookBody.static
export type UpdateWebhook = typeof UpdateWebhookBody.static
export type DeliveryStatus = (typeof deliveryStatuses)[number]
