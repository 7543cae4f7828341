// Webhooks: register one (its signing secret is shown once), list them, read a
// webhook's delivery log, replay a time range, reactivate one that was deactivated
// (with the reason it was), or delete it.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { webhookTypes } from '../../../../webhooks/types'
import { call } from '../api'
import { Field, FormError, formatTime, LoadError, Loading, Submit, useForm, useLoad } from '../ui'

interface Webhook {
	id: string
	webhook_type: string
	url: string
	is_active: boolean
	deactivated_at: number | null
	deactivation_reason: string | null
}

interface Delivery {
	id: string
	event: string
	attempt: number
	status: string
	status_code: number | null
	duration_ms: number
	error: string | null
	created_at: number
}

function CreateWebhook({ created }: { created: () => void }) {
	const form = useForm({ webhook_type: 'post.created', url: '' }, { address: 'url' })
	const [secret, setSecret] = useState('')
	const create = form.submit(async (values) => {
		const { webhook } = await call<{ webhook: Webhook & { secret: string } }>('POST', '/webhook', {
			body: values,
		})
		setSecret(webhook.secret)
		form.set('url', '')
		created()
	})
	return html`<form onSubmit=${create} aria-label="Add a webhook" class="inline" novalidate>
		<${FormError} form=${form} />
		<${Field}
			form=${form}
			name="webhook_type"
			label="Event"
			options=${webhookTypes.map((type) => ({ value: type, label: type }))}
		/>
		<${Field} form=${form} name="url" label="Receiver URL" type="url" required />
		<${Submit} form=${form} label="Add webhook" />
		${
			secret &&
			html`<div class="secret" role="status">
				<p>Signing secret — copy it now, it is not shown again:</p>
				<code>${secret}</code>
			</div>`
		}
	</form>`
}

function DeliveryLog({ webhook }: { webhook: Webhook }) {
	const { data, error, loading, reload } = useLoad(() =>
		call<{ deliveries: Delivery[]; total_count: number }>(
			'GET',
			`/webhook/${webhook.id}/deliveries`,
			{ query: { page_size: 20 } },
		),
	)
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	if (loading && !data) return html`<${Loading} what="deliveries" />`
	const deliveries = data?.deliveries ?? []
	return html`<div>
		<p>
			${data?.total_count ?? 0} attempts${' '}
			<button type="button" onClick=${reload}>Refresh log</button>
		</p>
		${
			deliveries.length > 0 &&
			html`<table aria-label=${`Deliveries of ${webhook.url}`}>
				<thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Duration</th></tr></thead>
				<tbody>
					${deliveries.map(
						(delivery) => html`<tr>
							<td>${formatTime(delivery.created_at)}</td>
							<td><code>${delivery.event}</code></td>
							<td>${delivery.attempt}</td>
							<td>${delivery.status}${delivery.status_code ? ` (${delivery.status_code})` : ''}${delivery.error ? ` — ${delivery.error}` : ''}</td>
							<td>${delivery.duration_ms} ms</td>
						</tr>`,
					)}
				</tbody>
			</table>`
		}
	</div>`
}

const toIso = (local: string) => (local ? new Date(local).toISOString() : '')

function Replay({ webhook }: { webhook: Webhook }) {
	const form = useForm({ since: '', until: '' })
	const [result, setResult] = useState('')
	const replay = form.submit(async (values) => {
		setResult('')
		const body = {
			since: toIso(values.since),
			...(values.until ? { until: toIso(values.until) } : {}),
		}
		if (!body.since) throw new Error('Choose when the range starts')
		const answer = await call<{ replayed: number }>('POST', `/webhook/${webhook.id}/replay`, {
			body,
		})
		setResult(`${answer.replayed} events queued again`)
	})
	return html`<form onSubmit=${replay} aria-label=${`Replay events to ${webhook.url}`} class="inline" novalidate>
		<${FormError} form=${form} />
		<${Field} form=${form} name="since" label="Replay from" type="datetime-local" required />
		<${Field} form=${form} name="until" label="until (empty: now)" type="datetime-local" />
		<${Submit} form=${form} label="Replay" />
		${result && html`<p class="done" role="status">${result}</p>`}
	</form>`
}

function WebhookItem({ webhook, changed }: { webhook: Webhook; changed: () => void }) {
	const [open, setOpen] = useState(false)
	const [error, setError] = useState('')
	const act = (work: () => Promise<unknown>) => async () => {
		setError('')
		try {
			await work()
			changed()
		} catch (problem) {
			setError((problem as Error).message)
		}
	}
	const reactivate = act(() =>
		call('PATCH', `/webhook/${webhook.id}`, { body: { is_active: true } }),
	)
	const remove = act(() => call('DELETE', `/webhook/${webhook.id}`))
	return html`<li class="card">
		<p>
			<span class=${webhook.is_active ? 'badge ok' : 'badge bad'}>${webhook.is_active ? 'active' : 'inactive'}</span>
			${' '}<code>${webhook.webhook_type}</code> → ${webhook.url}
		</p>
		${
			!webhook.is_active &&
			html`<p class="warning">
				Deactivated ${formatTime(webhook.deactivated_at)}: ${webhook.deactivation_reason ?? 'by a manager'}
				${' '}<button type="button" onClick=${reactivate}>Reactivate</button>
			</p>`
		}
		${error && html`<p class="error" role="alert">${error}</p>`}
		<button type="button" aria-expanded=${open} onClick=${() => setOpen(!open)}>
			${open ? 'Hide deliveries' : 'Deliveries and replay'}
		</button>
		<button type="button" class="danger" onClick=${remove} aria-label=${`Delete webhook ${webhook.url}`}>Delete</button>
		${open && html`<${DeliveryLog} webhook=${webhook} /><${Replay} webhook=${webhook} />`}
	</li>`
}

export function Webhooks() {
	const { data, error, loading, reload } = useLoad(() =>
		call<{ webhooks: Webhook[] }>('GET', '/webhook'),
	)
	return html`<${CreateWebhook} created=${reload} />
		<h2>Registered</h2>
		${error && html`<${LoadError} message=${error} retry=${reload} />`}
		${loading && !data && html`<${Loading} what="webhooks" />`}
		${data && data.webhooks.length === 0 && html`<p>No webhooks yet.</p>`}
		<ul class="plain">
			${(data?.webhooks ?? []).map((webhook) => html`<${WebhookItem} key=${webhook.id} webhook=${webhook} changed=${reload} />`)}
		</ul>`
}
