// Response forms of a webhook and of an attempt-log entry (DESIGN section 5).
import type { DeliveryStatus } from './model'
import type { DeliveryLogRow, WebhookRow } from './repo'

export function presentWebhook(row: WebhookRow) {
	return {
		id: row.id,
		webhook_type: row.webhook_type,
		url: row.url,
		is_active: row.is_active,
		created_at: Number(row.created_at),
		updated_at: Number(row.updated_at),
		deactivated_at: row.deactivated_at === null ? null : Number(row.deactivated_at),
		deactivation_reason: row.deactivation_reason,
	}
}

export function presentDelivery(row: DeliveryLogRow) {
	return {
		id: row.id,
		event_id: row.event_id,
		event: row.event,
		attempt: row.attempt,
		status: row.status as DeliveryStatus,
		status_code: row.status_code,
		duration_ms: row.duration_ms,
		error: row.error,
		created_at: Number(row.created_at),
	}
}
