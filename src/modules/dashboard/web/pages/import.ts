// Import: upload an NDJSON file of DESIGN §14 (users, topics, posts, likes, comments,
// connections); the import runs as a job on the server and this page follows its
// progress and shows the rejected lines with their reasons.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { call } from '../api'
import { FormError, Submit, useForm } from '../ui'

type Counts = Record<string, number>

interface Job {
	job_id: string
	status: 'queued' | 'running' | 'succeeded' | 'failed'
	counts: { imported?: Counts; matched?: Counts } | null
	rejects: { line: number; reason: string }[]
	reject_count: number
	error?: string
}

function CountsTable({ counts }: { counts: Job['counts'] }) {
	const imported = counts?.imported ?? {}
	const matched = counts?.matched ?? {}
	const types = [...new Set([...Object.keys(imported), ...Object.keys(matched)])]
	if (types.length === 0) return null
	return html`<table aria-label="Records">
		<thead><tr><th scope="col">Type</th><th scope="col">Imported</th><th scope="col">Already there</th></tr></thead>
		<tbody>
			${types.map((type) => html`<tr><td>${type}</td><td>${imported[type] ?? 0}</td><td>${matched[type] ?? 0}</td></tr>`)}
		</tbody>
	</table>`
}

function JobProgress({ jobId }: { jobId: string }) {
	const [job, setJob] = useState<Job>()
	const [error, setError] = useState('')
	useEffect(() => {
		let live = true
		const poll = async () => {
			try {
				const next = await call<Job>('GET', `/migration/import/${jobId}`)
				if (!live) return
				setJob(next)
				if (next.status === 'queued' || next.status === 'running') setTimeout(poll, 1000)
			} catch (problem) {
				if (live) setError((problem as Error).message)
			}
		}
		poll()
		return () => {
			live = false
		}
	}, [jobId])
	if (error) return html`<p class="error" role="alert">${error}</p>`
	if (!job) return html`<p class="loading" role="status">Starting the import…</p>`
	return html`<section aria-labelledby="job-title">
		<h2 id="job-title">Import ${job.job_id}</h2>
		<p role="status">Status: <strong>${job.status}</strong></p>
		${job.error && html`<p class="error" role="alert">${job.error}</p>`}
		<${CountsTable} counts=${job.counts} />
		${
			job.rejects.length > 0 &&
			html`<h3>Rejected lines (${job.reject_count})</h3>
				<table aria-label="Rejected lines">
					<thead><tr><th scope="col">Line</th><th scope="col">Reason</th></tr></thead>
					<tbody>
						${job.rejects.map((reject) => html`<tr><td>${reject.line}</td><td>${reject.reason}</td></tr>`)}
					</tbody>
				</table>`
		}
	</section>`
}

export function Import() {
	const form = useForm({ file: '' })
	const [file, setFile] = useState<File>()
	const [jobId, setJobId] = useState('')
	const upload = form.submit(async () => {
		if (!file) return form.fail('file', 'Choose an NDJSON file')
		const job = await call<{ job_id: string }>('POST', '/migration/import', {
			raw: { body: file, type: 'application/x-ndjson' },
		})
		setJobId(job.job_id)
	})
	const inputId = `${form.id}-file`
	return html`<p>
			One JSON record per line: users, topics, posts, likes, comments and connections, in
			any order. Running the same file again adds nothing; bad lines are listed with
			their reason and the rest is imported.
		</p>
		<form onSubmit=${upload} aria-label="Import a file" novalidate>
			<${FormError} form=${form} />
			<div class="field">
				<label for=${inputId}>NDJSON file</label>
				<input
					id=${inputId}
					type="file"
					accept=".ndjson,.jsonl,application/x-ndjson"
					aria-invalid=${form.errors.file ? 'true' : undefined}
					aria-describedby=${form.errors.file ? `${inputId}-error` : undefined}
					onChange=${(event: Event) => setFile((event.target as HTMLInputElement).files?.[0])}
				/>
				${form.errors.file && html`<p class="error" id=${`${inputId}-error`} data-error-for="file" role="alert">${form.errors.file}</p>`}
			</div>
			<${Submit} form=${form} label="Import" />
		</form>
		${jobId && html`<${JobProgress} key=${jobId} jobId=${jobId} />`}`
}
