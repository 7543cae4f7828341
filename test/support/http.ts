// One request helper for every test: drives the app in-process through app.handle().
import { app } from '../../src/app'

export interface Reply<T = any> {
	status: number
	body: T
	headers: Headers
}

export interface RequestOptions {
	body?: unknown
	token?: string
	apiKey?: string
	headers?: Record<string, string>
	rawBody?: string
}

export async function api<T = any>(
	method: string,
	path: string,
	options: RequestOptions = {},
): Promise<Reply<T>> {
	const headers: Record<string, string> = { ...options.headers }
	if (options.token) headers.authorization = `Bearer ${options.token}`
	if (options.apiKey) headers['x-api-key'] = options.apiKey
	let body: string | undefined
	if (options.rawBody !== undefined) body = options.rawBody
	else if (options.body !== undefined) body = JSON.stringify(options.body)
	if (body !== undefined) headers['content-type'] ??= 'application/json'
	const response = await app.handle(
		new Request(`http://localhost${path}`, { method, headers, body }),
	)
	const text = await response.text()
	let parsed: unknown = text
	try {
		parsed = JSON.parse(text)
	} catch {}
	return { status: response.status, body: parsed as T, headers: response.headers }
}
