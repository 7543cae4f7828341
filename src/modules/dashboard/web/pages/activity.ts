// Custom notification activity (POST /feed/user/activity): a CM puts a line in the
// notification feed of chosen members — and so a push on their devices — about a
// post, a comment or a user.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { currentSession } from '../session'
import { Field, FormError, Submit, useForm } from '../ui'

const recipientsOf = (text: string) => [...new Set(text.split(/[\s,;]+/).filter(Boolean))]

export function CustomActivity() {
	const form = useForm(
		{
			activity_text: '',
			action_on: '',
			entity_type: 'post',
			entity_id: '',
			action_by: currentSession()?.user.uuid ?? '',
		},
		{ recipients: 'action_on', text: 'activity_text' },
	)
	const [sent, setSent] = useState('')
	const send = form.submit(async (values) => {
		setSent('')
		const recipients = recipientsOf(values.action_on)
		await call('POST', '/feed/user/activity', {
			body: { ...values, action: 'custom_activity', action_on: recipients },
		})
		setSent(`Sent to ${recipients.length} members.`)
		form.set('activity_text', '')
	})
	return html`<p>
			Each recipient gets the activity in their notification feed, and a push on their
			devices.
		</p>
		<form onSubmit=${send} aria-label="Send a custom activity" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="activity_text" label="Text" required />
			<${Field}
				form=${form}
				name="action_on"
				label="Recipients"
				hint="uuids or your own user ids, one per line or separated by commas"
				rows=${4}
				required
			/>
			<${Field}
				form=${form}
				name="entity_type"
				label="About a"
				options=${['post', 'comment', 'user'].map((value) => ({ value, label: value }))}
			/>
			<${Field} form=${form} name="entity_id" label="Its id" hint="The post or comment id, or the user's uuid" />
			<${Field} form=${form} name="action_by" label="From (uuid)" hint="Shown as the actor; you by default" />
			<${Submit} form=${form} label="Send activity" />
			${sent && html`<p class="done" role="status">${sent}</p>`}
		</form>`
}
