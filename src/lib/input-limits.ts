// Input limits, in one place: every request body is read through here (size per route,
// JSON nesting depth, NUL characters, lone surrogates, unsafe numbers), and every
// query value and path parameter is checked for the same characters. Each check runs
// before any route schema, costs time linear in the input, and answers a 4xx in the
// envelope naming the field. docs/security.md lists the limits.
import { config } from '../config'
import { AppError, badRequest } from './errors'

export const MAX_JSON_DEPTH = 32

/**
 * The largest user or cohort id taken as input. The ids are bigint (migration 0200) and
 * held as JS numbers, exact to 2^53; a larger one names nothing (404/400, never a 500).
 */
export const MAX_ID = Number.MAX_SAFE_INTEGER
/**
 * Bun's own ceiling (its 413 is plain text): set far above every route's limit so the
 * route limits below answer first, in the envelope. Streamed uploads (NDJSON imports)
 * are bounded by their route.
 */
export const SERVER_MAX_BODY_BYTES = Math.max(1024 * 1024 * 1024, config.IMPORT_MAX_BYTES + 1)

/** Our limit on a request's head (request line and headers): Node's and Bun's default. */
export const MAX_HEADER_BYTES = 16 * 1024
/**
 * Bun answers a head over its own limit itself, with a bare 431 and no hook to shape it;
 * index.ts raises that limit to this, so heads between ours and it get our 431 in the
 * envelope. Only a head over 64 KB (no client sends one by accident) gets Bun's.
 */
export const SERVER_MAX_HEADER_BYTES = 64 * 1024

/** Refuses a head over MAX_HEADER_BYTES, counted as it travelled (`Name: value\r\n`). */
export function assertHeaderSize(request: Request, url: URL): void {
	let size = request.method.length + url.pathname.length + url.search.length + 12
	for (const [name, value] of request.headers) size += name.length + value.length + 4
	if (size > MAX_HEADER_BYTES)
		throw new AppError(
			431,
			`Request headers larger than ${MAX_HEADER_BYTES} bytes (got ${size}): send fewer or shorter headers`,
		)
}

interface BodyLimit {
	method: string
	path: RegExp
	bytes: number
}

// What each route needs, with headroom; anything not listed gets MAX_BODY_BYTES (256 KB).
const bodyLimits: BodyLimit[] = [
	{ method: 'POST', path: /^\/sdk\/initiate$/, bytes: 8 * 1024 },
	{ method: 'POST', path: /^\/user\/(refresh|logout)$/, bytes: 4 * 1024 },
	{ method: 'PUT', path: /^\/sdk\/project$/, bytes: 64 * 1024 },
	{ method: 'PUT', path: /^\/community\/settings$/, bytes: 64 * 1024 },
	{ method: 'PUT', path: /\/like$/, bytes: 1024 },
	{ method: 'POST', path: /^\/feed\/post\/seen$/, bytes: 64 * 1024 },
	// Streamed by its route into stored chunks, never held (modules/migration).
	{
		method: 'POST',
		path: /^\/migration\/import$/,
		get bytes() {
			return config.IMPORT_MAX_BYTES
		},
	},
	// a custom activity names up to 100,000 recipients (uuids or customer ids)
	{ method: 'POST', path: /^\/feed\/user\/activity$/, bytes: 8 * 1024 * 1024 },
	{ method: 'POST', path: /^\/user\/device\/push$/, bytes: 8 * 1024 },
	// client error reports: up to 50 entries of bounded fields (modules/client-logs)
	{ method: 'POST', path: /^\/logs$/, bytes: 64 * 1024 },
]

export function bodyLimitFor(method: string, pathname: string): number {
	const match = bodyLimits.find((limit) => limit.method === method && limit.path.test(pathname))
	return match?.bytes ?? config.MAX_BODY_BYTES
}

export const tooLarge = (limit: number) =>
	new AppError(413, `Request body larger than ${limit} bytes`)

/** Refuses a declared length over the route's limit before a byte is read. */
export function assertDeclaredLength(request: Request, pathname: string): void {
	const declared = Number(request.headers.get('content-length') ?? 0)
	const limit = bodyLimitFor(request.method, pathname)
	if (declared > limit) throw tooLarge(limit)
}

/** The body's bytes, stopping at the limit (a chunked body declares no length). */
async function readBounded(request: Request, limit: number): Promise<Uint8Array> {
	if (!request.body) return new Uint8Array()
	// A declared length was held to the limit before (assertDeclaredLength) and the server
	// reads no more than it declares: read natively, without the stream's JavaScript
	// machinery (a tenth of a small POST's CPU).
	if (request.headers.has('content-length')) return new Uint8Array(await request.arrayBuffer())
	const chunks: Uint8Array[] = []
	let size = 0
	for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
		size += chunk.byteLength
		if (size > limit) throw tooLarge(limit)
		chunks.push(chunk)
	}
	return Buffer.concat(chunks)
}

/** Counts brackets outside strings: a linear scan, so depth is refused before JSON.parse. */
export function assertJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
	let depth = 0
	let inString = false
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i)
		if (inString) {
			if (c === 92)
				i++ // backslash: skip the escaped character
			else if (c === 34) inString = false
		} else if (c === 34) inString = true
		else if (c === 91 || c === 123) {
			if (++depth > max) throw badRequest(`Request body is nested deeper than ${max} levels`)
		} else if (c === 93 || c === 125) depth--
	}
}

// A NUL (Postgres text refuses it) or a surrogate half without its pair (not encodable
// as UTF-8).
const unsafeCharacter = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export function unsafeCharacterIn(value: string): string | null {
	const found = unsafeCharacter.exec(value)
	if (!found) return null
	return found[0] === '\0' ? 'a NUL character' : 'a lone surrogate (not valid Unicode)'
}

const fieldName = (path: string[]) => path.join('.') || '(root)'

/** Walks a parsed value (depth already bounded) for unsafe characters and numbers. */
export function assertCleanValue(value: unknown, where: string, path: string[] = []): void {
	if (typeof value === 'string') {
		const problem = unsafeCharacterIn(value)
		if (problem) throw badRequest(`Invalid ${where}: ${fieldName(path)} contains ${problem}`)
	} else if (typeof value === 'number') {
		if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
			throw badRequest(`Invalid ${where}: ${fieldName(path)} is out of range (got ${value})`)
	} else if (Array.isArray(value)) {
		value.forEach((item, i) => {
			assertCleanValue(item, where, [...path, String(i)])
		})
	} else if (value && typeof value === 'object') {
		for (const [key, item] of Object.entries(value)) {
			const problem = unsafeCharacterIn(key)
			if (problem) throw badRequest(`Invalid ${where}: a field name contains ${problem}`)
			assertCleanValue(item, where, [...path, key])
		}
	}
}

/** Query values: unsafe characters, and numbers no integer column can hold (`page=1e18`). */
export function assertCleanQuery(query: Record<string, unknown>): void {
	for (const [name, raw] of Object.entries(query)) {
		for (const value of Array.isArray(raw) ? raw : [raw]) {
			if (typeof value !== 'string') continue
			const problem = unsafeCharacterIn(value) ?? unsafeCharacterIn(name)
			if (problem) throw badRequest(`Invalid query: ${name} contains ${problem}`)
			const number = value.trim() === '' ? 0 : Number(value)
			if (Number.isFinite(number) && Math.abs(number) > Number.MAX_SAFE_INTEGER)
				throw badRequest(`Invalid query: ${name} is out of range (got ${value.slice(0, 40)})`)
		}
	}
}

export function assertCleanParams(params: Record<string, string | undefined>): void {
	for (const [name, value] of Object.entries(params)) {
		const problem = value === undefined ? null : unsafeCharacterIn(value)
		if (problem) throw badRequest(`Invalid path: ${name} contains ${problem}`)
	}
}

const notJson = (contentType: string) =>
	badRequest(`Request body must be JSON (Content-Type: application/json), got ${contentType}`)

function parseJson(text: string, contentType: string): unknown {
	assertJsonDepth(text)
	try {
		return JSON.parse(text)
	} catch {
		throw /json/i.test(contentType) ? badRequest('Malformed request body') : notJson(contentType)
	}
}

function parseForm(text: string): Record<string, string | string[]> {
	const form: Record<string, string | string[]> = {}
	for (const [key, value] of new URLSearchParams(text)) {
		const seen = form[key]
		form[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]
	}
	return form
}

/**
 * The one body parser (app.ts's onParse): bounded read, then JSON (also when sent as
 * text/plain or without a type), a form, or multipart. Any other type is a 400 rather
 * than a string that fails the route's checks with a confusing message.
 */
export async function parseBody(request: Request, contentType: string): Promise<unknown> {
	// A stream of records is read (and bounded) by its route as it goes.
	if (/x-ndjson/i.test(contentType)) return undefined
	const limit = bodyLimitFor(request.method, new URL(request.url).pathname)
	const bytes = await readBounded(request, limit)
	if (/multipart\/form-data/i.test(contentType)) {
		const headers = { 'content-type': request.headers.get('content-type') ?? '' }
		const form = await new Response(bytes, { headers }).formData().catch(() => {
			throw badRequest('Malformed multipart body')
		})
		const body = Object.fromEntries(form)
		assertCleanValue(body, 'body')
		return body
	}
	const text = new TextDecoder().decode(bytes)
	if (text.trim() === '') return {}
	let body: unknown
	// chat-js labels its mark_read body a form but axios sends it as JSON: a form body
	// never starts with "{", so that one is read as the JSON it is.
	if (/x-www-form-urlencoded/i.test(contentType) && !text.trimStart().startsWith('{'))
		body = parseForm(text)
	else if (!contentType || /json|text\/plain|x-www-form-urlencoded/i.test(contentType))
		body = parseJson(text, contentType || 'no content-type')
	else throw notJson(contentType)
	assertCleanValue(body, 'body')
	return body
}
