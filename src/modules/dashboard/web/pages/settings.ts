// Community settings: feature toggles such as user_connection, the default
// notification state new chatroom members start with, and the chat_poll configuration.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { call } from '../api'
import { Field, FormError, LoadError, Loading, Submit, useForm, useLoad } from '../ui'
import { PollConfiguration } from './poll-config'

interface Setting {
	setting_type: string
	enabled: boolean
	setting_title: string
	setting_sub_title: string
}

function Toggles() {
	const { data, error, loading, reload } = useLoad(() =>
		call<{ community_settings: Setting[] }>('GET', '/community/settings'),
	)
	const [failure, setFailure] = useState('')
	// What a click asked for, shown until the settings are read again: the reload's own
	// render (still the old data) would otherwise put the old state back in the box.
	const [asked, setAsked] = useState<Record<string, boolean>>({})
	useEffect(() => setAsked({}), [data])
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	if (loading && !data) return html`<${Loading} what="settings" />`
	const shown = (setting: Setting) => asked[setting.setting_type] ?? setting.enabled
	const flip = async (setting: Setting) => {
		const type = setting.setting_type
		const enabled = !shown(setting)
		setFailure('')
		setAsked((old) => ({ ...old, [type]: enabled }))
		try {
			await call('PUT', '/community/settings', {
				body: { community_settings: [{ setting_type: type, enabled }] },
			})
			reload()
		} catch (problem) {
			setAsked(({ [type]: _, ...rest }) => rest)
			setFailure((problem as Error).message)
		}
	}
	return html`<fieldset>
		<legend>Features</legend>
		${failure && html`<p class="error" role="alert">${failure}</p>`}
		${(data?.community_settings ?? []).map(
			(setting) => html`<div class="toggle">
				<input
					type="checkbox"
					id=${`setting-${setting.setting_type}`}
					checked=${shown(setting)}
					onChange=${() => flip(setting)}
				/>
				<label for=${`setting-${setting.setting_type}`}>
					${setting.setting_title || setting.setting_type} <code>${setting.setting_type}</code>
				</label>
				<p class="hint">${setting.setting_sub_title}</p>
			</div>`,
		)}
	</fieldset>`
}

const notiStates = [
	{ value: '1', label: '1 — every message' },
	{ value: '2', label: '2 — mentions and replies' },
	{ value: '3', label: '3 — direct messages, mentions and polls' },
]

function NotificationState() {
	const { data, error, loading, reload } = useLoad(() =>
		call<{ community_notification_settings: { noti_state: number } }>(
			'GET',
			'/community/settings/notification/conversation',
		),
	)
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	if (loading && !data) return html`<${Loading} what="the notification state" />`
	return html`<${NotiStateForm} current=${String(data?.community_notification_settings.noti_state ?? 1)} />`
}

function NotiStateForm({ current }: { current: string }) {
	const form = useForm({ noti_state: current })
	const [saved, setSaved] = useState(false)
	const save = form.submit(async (values) => {
		setSaved(false)
		await call('PUT', '/community/settings/notification/conversation', {
			body: { noti_state: Number(values.noti_state) },
		})
		setSaved(true)
	})
	return html`<form onSubmit=${save} aria-label="Default notification state" novalidate>
		<${FormError} form=${form} />
		<${Field}
			form=${form}
			name="noti_state"
			label="Default notification state of new chatroom members"
			options=${notiStates}
		/>
		<${Submit} form=${form} label="Save" />
		${saved && html`<p class="done" role="status">Saved.</p>`}
	</form>`
}

export function Settings() {
	return html`<${Toggles} />
		<h2>Notifications</h2>
		<${NotificationState} />
		<h2>Polls</h2>
		<${PollConfiguration} />`
}
