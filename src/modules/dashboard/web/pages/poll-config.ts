// The chat_poll configuration (GET|PATCH /community/configurations): the defaults of
// new polls and whether a poll's creator may override them. The API checks every
// rule (e.g. no_poll_expiry with deferred polls) and its message is shown at the field.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { Field, FormError, LoadError, Loading, Submit, useForm, useLoad } from '../ui'

interface PollConfig {
	allow_override: boolean
	poll_type: string
	no_poll_expiry: boolean
	allow_vote_change: boolean
	multiple_select_state: string
	multiple_select_no: number
	is_anonymous: boolean
	allow_add_option: boolean
}

const yesNo = [
	{ value: 'true', label: 'yes' },
	{ value: 'false', label: 'no' },
]
const choices = (values: string[]) => values.map((value) => ({ value, label: value }))
const booleans = [
	'allow_override',
	'no_poll_expiry',
	'allow_vote_change',
	'is_anonymous',
	'allow_add_option',
] as const

async function loadConfig(): Promise<PollConfig> {
	const data = await call<{ community_configurations: { type: string; value: PollConfig }[] }>(
		'GET',
		'/community/configurations',
		{ query: { configuration_types: 'chat_poll' } },
	)
	const found = data.community_configurations.find((config) => config.type === 'chat_poll')
	if (!found) throw new Error('The community has no chat_poll configuration')
	return found.value
}

function PollConfigForm({ config }: { config: PollConfig }) {
	const form = useForm({
		allow_override: String(config.allow_override),
		poll_type: config.poll_type,
		no_poll_expiry: String(config.no_poll_expiry),
		allow_vote_change: String(config.allow_vote_change),
		multiple_select_state: config.multiple_select_state,
		multiple_select_no: String(config.multiple_select_no),
		is_anonymous: String(config.is_anonymous),
		allow_add_option: String(config.allow_add_option),
	})
	const [saved, setSaved] = useState(false)
	const save = form.submit(async (values) => {
		setSaved(false)
		const value: Record<string, unknown> = {
			poll_type: values.poll_type,
			multiple_select_state: values.multiple_select_state,
			multiple_select_no: Number(values.multiple_select_no),
		}
		for (const name of booleans) value[name] = values[name] === 'true'
		await call('PATCH', '/community/configurations', { body: { type: 'chat_poll', value } })
		setSaved(true)
	})
	return html`<form onSubmit=${save} aria-label="Poll configuration" class="grid" novalidate>
		<${FormError} form=${form} />
		<${Field} form=${form} name="poll_type" label="Poll type" options=${choices(['instant', 'deferred', 'open'])} />
		<${Field} form=${form} name="no_poll_expiry" label="Polls never expire (no_poll_expiry)" options=${yesNo} />
		<${Field} form=${form} name="allow_vote_change" label="Votes may change" options=${yesNo} />
		<${Field}
			form=${form}
			name="multiple_select_state"
			label="Selection rule"
			options=${choices(['exactly', 'at_max', 'at_least'])}
		/>
		<${Field} form=${form} name="multiple_select_no" label="Number of choices" type="number" />
		<${Field} form=${form} name="is_anonymous" label="Anonymous votes" options=${yesNo} />
		<${Field} form=${form} name="allow_add_option" label="Members may add options" options=${yesNo} />
		<${Field}
			form=${form}
			name="allow_override"
			label="Creators may override these (allow_override)"
			options=${yesNo}
		/>
		<${Submit} form=${form} label="Save poll configuration" />
		${saved && html`<p class="done" role="status">Poll configuration saved.</p>`}
	</form>`
}

export function PollConfiguration() {
	const { data, error, loading, reload } = useLoad(loadConfig)
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	if (loading || !data) return html`<${Loading} what="the poll configuration" />`
	return html`<${PollConfigForm} config=${data} />`
}
