// Every call the dashboard makes goes through here: the public HTTP API with the
// session's token, one refresh on a 401, and the API's error_message carried to the
// form that caused it.
import { currentSession, saveSession } from './session'

export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message)
	}
}

export interface CallOptions {
	body?: unknown
	/** A body sent as it is (a file), with its content type, instead of JSON. */
	raw?: { body: Blob; type: string }
	query?: Record<string, string | number | boolean | undefined>
	headers?: Record<string, string>
	/** Sign-in calls have no session yet. */
	anonymous?: boolean
}

function withQuery(path: string, query: CallOptions['query']): string {
	if (!query) return path
	const params = new URLSearchParams()
	for (const [name, value] of Object.entries(query))
		if (value !== undefined && value !== '') params.set(name, String(value))
	const text = params.toString()
	return text ? `${path}?${text}` : path
}

async function send(method: string, path: string, options: CallOptions, token?: string) {
	const headers: Record<string, string> = { ...options.headers }
	if (token) headers.authorization = `Bearer ${token}`
	let body: BodyInit | undefined
	if (options.raw) {
		headers['content-type'] = options.raw.type
		body = options.raw.body
	} else if (options.body !== undefined) {
		headers['content-type'] = 'application/json'
		body = JSON.stringify(options.body)
	}
	const response = await fetch(withQuery(path, options.query), { method, headers, body })
	let envelope: { success?: boolean; error_message?: string; data?: unknown } = {}
	try {
		envelope = await response.json()
	} catch {
		envelope = { error_message: `The server answered ${response.status} without JSON` }
	}
	return { status: response.status, envelope }
}

let refreshing: Promise<boolean> | undefined

/** Exchanges the refresh token once for every call that got a 401 at the same time. */
function refreshSession(): Promise<boolean> {
	refreshing ??= (async () => {
		const session = currentSession()
		if (!session) return false
		const { status, envelope } = await send('POST', '/user/refresh', {
			body: { refresh_token: session.refresh_token },
		})
		const tokens = envelope.data as { access_token: string; refresh_token: string } | undefined
		if (status !== 200 || !tokens) return false
		saveSession({
			...session,
			auth_token: tokens.access_token,
			refresh_token: tokens.refresh_token,
		})
		return true
	})().finally(() => {
		refreshing = undefined
	})
	return refreshing
}

/** The whole answer, for the routes that answer beside `data` (`POST /live/ticket`). */
export async function callForEnvelope<T = Record<string, unknown>>(
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<T> {
	const token = options.anonymous ? undefined : currentSession()?.auth_token
	let { status, envelope } = await send(method, path, options, token)
	if (status === 401 && token) {
		if (await refreshSession())
			({ status, envelope } = await send(method, path, options, currentSession()?.auth_token))
		if (status === 401) saveSession(null)
	}
	if (status >= 400 || envelope.success === false)
		throw new ApiError(status, envelope.error_message ?? `Request failed (${status})`)
	return envelope as T
}

export async function call<T = any>(method: string, path: string, options: CallOptions = {}) {
	const envelope = await callForEnvelope<{ data?: unknown }>(method, path, options)
	return envelope.data as T
}

/** Which of a form's fields an error message is about (the API names the field). */
export function fieldOf(
	message: string,
	fields: string[],
	aliases: Record<string, string> = {},
): string | undefined {
	const lower = message.toLowerCase()
	const mentions = (word: string) => new RegExp(`\\b${word.toLowerCase()}\\b`).test(lower)
	const named = fields.find(mentions)
	if (named) return named
	const alias = Object.keys(aliases).find(mentions)
	return alias === undefined ? undefined : aliases[alias]
}
