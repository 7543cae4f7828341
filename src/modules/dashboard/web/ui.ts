// Small building blocks every page uses: a labelled field that shows its own error,
// and a form hook that keeps what was typed and puts the API's message next to the
// field it names (or above the form when it names none).
import { html } from 'htm/preact'
import { useEffect, useId, useState } from 'preact/hooks'
import { ApiError, fieldOf } from './api'

export interface FormState<V extends Record<string, string>> {
	/** Unique per form, so two forms on a page never share a field id. */
	id: string
	values: V
	errors: Partial<Record<keyof V | 'form', string>>
	busy: boolean
	set: (name: keyof V, value: string) => void
	submit: (action: (values: V) => Promise<void>) => (event?: Event) => Promise<void>
	fail: (name: keyof V | 'form', message: string) => void
}

/**
 * `aliases` names other words the API uses for a field (e.g. `{ number: 'mobile_no' }`
 * for "No dashboard owner is registered with this number").
 */
export function useForm<V extends Record<string, string>>(
	initial: V,
	aliases: Record<string, keyof V & string> = {},
): FormState<V> {
	const [values, setValues] = useState(initial)
	const [errors, setErrors] = useState<FormState<V>['errors']>({})
	const [busy, setBusy] = useState(false)
	const id = useId()
	const fields = Object.keys(initial)
	return {
		id,
		values,
		errors,
		busy,
		set: (name, value) => setValues((old) => ({ ...old, [name]: value })),
		fail: (name, message) => setErrors({ [name]: message } as FormState<V>['errors']),
		submit: (action) => async (event) => {
			event?.preventDefault()
			setBusy(true)
			setErrors({})
			try {
				await action(values)
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error)
				const field = error instanceof ApiError ? fieldOf(message, fields, aliases) : undefined
				setErrors({ [field ?? 'form']: message } as FormState<V>['errors'])
			} finally {
				setBusy(false)
			}
		},
	}
}

interface FieldProps {
	form: FormState<any>
	name: string
	label: string
	type?: string
	hint?: string
	required?: boolean
	inputMode?: string
	autoComplete?: string
	options?: { value: string; label: string }[]
	/** A textarea of this many rows instead of a one-line input. */
	rows?: number
}

export function Field(props: FieldProps) {
	const { form, name, label, type = 'text', hint, options } = props
	const id = `${form.id}-${name}`
	const error = form.errors[name]
	const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ')
	const common = {
		id,
		name,
		'aria-invalid': error ? 'true' : undefined,
		'aria-describedby': described || undefined,
		value: form.values[name],
		onInput: (event: Event) => form.set(name, (event.target as HTMLInputElement).value),
	}
	const control = options
		? html`<select ...${common}>
				${options.map((option) => html`<option value=${option.value}>${option.label}</option>`)}
			</select>`
		: props.rows
			? html`<textarea ...${common} rows=${props.rows} required=${props.required}></textarea>`
			: html`<input
				...${common}
				type=${type}
				required=${props.required}
				inputmode=${props.inputMode}
				autocomplete=${props.autoComplete}
			/>`
	return html`<div class="field">
		<label for=${id}>${label}</label>
		${control}
		${hint && html`<p class="hint" id=${`${id}-hint`}>${hint}</p>`}
		${error && html`<p class="error" id=${`${id}-error`} data-error-for=${name} role="alert">${error}</p>`}
	</div>`
}

export function FormError({ form }: { form: FormState<any> }) {
	const error = form.errors.form
	return error ? html`<p class="error form-error" role="alert">${error}</p>` : null
}

export function Submit({ form, label }: { form: FormState<any>; label: string }) {
	return html`<button type="submit" disabled=${form.busy}>${form.busy ? 'Working…' : label}</button>`
}

/** A page's data loaded from the API, with the error shown instead of a blank page. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
	const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({
		loading: true,
	})
	const [version, setVersion] = useState(0)
	const reload = () => setVersion((v) => v + 1)
	// biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what reloads
	useEffect(() => {
		let live = true
		setState((old) => ({ ...old, loading: true }))
		load().then(
			(data) => live && setState({ data, loading: false }),
			(error: Error) => live && setState({ error: error.message, loading: false }),
		)
		return () => {
			live = false
		}
	}, [version, ...deps])
	return { ...state, reload }
}

export function Loading({ what }: { what: string }) {
	return html`<p class="loading" role="status">Loading ${what}…</p>`
}

export function LoadError({ message, retry }: { message: string; retry: () => void }) {
	return html`<div class="error form-error" role="alert">
		<p>${message}</p>
		<button type="button" onClick=${retry}>Try again</button>
	</div>`
}

export const formatTime = (ms: number | null | undefined) =>
	ms ? new Date(ms).toLocaleString() : '—'
