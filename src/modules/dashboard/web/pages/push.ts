// Push credentials: the owner uploads the push provider's service-account JSON file
// (PUT /sdk/project); the page shows what is stored — never the private key.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { ApiError, call } from '../api'
import { remembered } from '../session'
import { Field, FormError, LoadError, Loading, Submit, useForm, useLoad } from '../ui'

interface StoredFile {
	project_id: string
	client_email: string
	private_key_id: string
}

interface Project {
	project: { id: string; name: string }
	push_service_account_file: StoredFile | null
}

const dashboardHeaders = (apiKey: string) => ({
	'x-api-key': apiKey,
	'x-platform-type': 'dashboard',
})

function readJsonFile(file: File | undefined): Promise<unknown> {
	if (!file) throw new ApiError(400, 'Choose the service-account file')
	return file.text().then((text) => {
		try {
			return JSON.parse(text)
		} catch {
			throw new ApiError(400, `file: ${file.name} is not JSON`)
		}
	})
}

function Stored({ apiKey }: { apiKey: string }) {
	const { data, error, loading, reload } = useLoad(
		() => call<Project>('GET', '/sdk/project', { headers: dashboardHeaders(apiKey) }),
		[apiKey],
	)
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	if (loading || !data) return html`<${Loading} what="the stored credentials" />`
	const credentials = data.push_service_account_file
	if (!credentials) return html`<p>No credentials stored yet.</p>`
	return html`<dl class="details" aria-label="Stored credentials">
		<div><dt>Project id</dt><dd>${credentials.project_id}</dd></div>
		<div><dt>Client email</dt><dd>${credentials.client_email}</dd></div>
		<div><dt>Key id</dt><dd>${credentials.private_key_id}</dd></div>
	</dl>`
}

export function PushCredentials() {
	const form = useForm(
		{ api_key: remembered.get('api_key'), file: '' },
		{ push_service_account_file: 'file', 'x-api-key': 'api_key', key: 'api_key' },
	)
	const [file, setFile] = useState<File>()
	const [saved, setSaved] = useState(0)
	const upload = form.submit(async (values) => {
		const content = await readJsonFile(file)
		remembered.set('api_key', values.api_key)
		await call('PUT', '/sdk/project', {
			headers: dashboardHeaders(values.api_key),
			body: { push_service_account_file: content },
		})
		setSaved((count) => count + 1)
	})
	const apiKey = form.values.api_key
	return html`<p>
			The push provider's service-account file, as downloaded from its console. It is
			stored encrypted; only the owner can replace it.
		</p>
		<form onSubmit=${upload} aria-label="Upload credentials" novalidate>
			<${FormError} form=${form} />
			<${Field}
				form=${form}
				name="api_key"
				label="Project API key"
				hint="The x-api-key of this project (kept in this tab only)"
				autoComplete="off"
				required
			/>
			<div class="field">
				<label for=${`${form.id}-file`}>Service-account file (JSON)</label>
				<input
					id=${`${form.id}-file`}
					type="file"
					accept="application/json,.json"
					aria-invalid=${form.errors.file ? 'true' : undefined}
					aria-describedby=${form.errors.file ? `${form.id}-file-error` : undefined}
					onChange=${(event: Event) => setFile((event.target as HTMLInputElement).files?.[0])}
				/>
				${form.errors.file && html`<p class="error" id=${`${form.id}-file-error`} data-error-for="file" role="alert">${form.errors.file}</p>`}
			</div>
			<${Submit} form=${form} label="Upload" />
			${saved > 0 && html`<p class="done" role="status">Credentials saved.</p>`}
		</form>
		<h2>Stored</h2>
		${apiKey ? html`<${Stored} apiKey=${apiKey} key=${`${apiKey}:${saved}`} />` : html`<p>Enter the API key to see what is stored.</p>`}`
}
