// Reading one NDJSON line: parse, check against its type's schema and the rules a
// schema cannot say (no future dates, a like names one target, no self-connection),
// and render the row for the staging table in COPY text format. A bad line becomes a
// reject reason; nothing here touches the database.
import { FUTURE_SLACK_MS } from '../modules/posts/backdating'
import { checkers, type RecordType, recordTypes } from './record-model'

/** Staging columns per type, in COPY order; `line` first and `raw` last in every table. */
export const stageColumns: Record<RecordType, string[]> = {
	user: ['line', 'user_unique_id', 'name', 'image_url', 'is_guest', 'created_at', 'raw'],
	topic: ['line', 'external_id', 'name', 'parent_external_id', 'priority', 'is_enabled', 'raw'],
	post: [
		'line',
		'external_id',
		'user_unique_id',
		'text',
		'heading',
		'created_at',
		'topic_external_ids',
		'attachments',
		'visibility',
		'raw',
	],
	comment: [
		'line',
		'external_id',
		'user_unique_id',
		'post_external_id',
		'parent_external_id',
		'text',
		'created_at',
		'raw',
	],
	like: ['line', 'user_unique_id', 'post_external_id', 'comment_external_id', 'created_at', 'raw'],
	connection: ['line', 'user_unique_id', 'target_user_unique_id', 'connection_type', 'raw'],
}

export type Parsed =
	| { ok: true; type: RecordType; copyLine: string; key: string }
	| { ok: false; reason: string }

/**
 * A record's customer id as one string, the key the duplicate check groups on
 * (apply-repo.ts duplicateKeys): equal ids give equal strings (a missing reference is
 * '', as the check groups nulls together).
 */
function customerKey(type: RecordType, v: Record<string, unknown>): string {
	switch (type) {
		case 'user':
			return v.user_unique_id as string
		case 'like':
			return `${v.user_unique_id}\u0001${v.post_external_id ?? ''}\u0002${v.comment_external_id ?? ''}`
		case 'connection':
			return `${v.user_unique_id}\u0001${v.target_user_unique_id}`
		default:
			return v.external_id as string
	}
}

const SPECIAL = /[\\\t\n\r]/
const SPECIALS = /[\\\t\n\r]/g
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/** One field in COPY text format: `\N` for null, backslash escapes for the rest. */
function field(value: unknown): string {
	if (value === undefined || value === null) return '\\N'
	const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
	return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c] as string) : text
}

/**
 * `field` for a line without a backslash: JSON escapes every tab, newline, carriage
 * return and backslash inside a string, so none of its values holds one and the
 * escaping pass has nothing to do.
 */
function plainField(value: unknown): string {
	if (value === undefined || value === null) return '\\N'
	return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** Strings Postgres cannot store (NUL) or UTF-8 cannot encode (lone surrogates), found anywhere in the value. */
function badString(value: unknown): boolean {
	if (typeof value === 'string') return value.includes('\0') || !value.isWellFormed()
	if (Array.isArray(value)) return value.some(badString)
	if (value && typeof value === 'object') return Object.values(value).some(badString)
	return false
}

function firstError(type: RecordType, value: unknown): string {
	const error = checkers[type].Errors(value).First()
	if (!error) return `invalid ${type}`
	const path = error.path.slice(1).replaceAll('/', '.')
	return `${type}: ${path ? `${path}: ` : ''}${error.message}`
}

/**
 * Checks one line and renders its staging row, or says why it is rejected. `keepRaw`:
 * the row carries the line itself (for the rejects the set-based checks find), unless
 * the input can be read again, in which case those few lines are read back by number.
 */
export function parseLine(raw: string, line: number, now: number, keepRaw = true): Parsed {
	let value: Record<string, unknown>
	try {
		value = JSON.parse(raw)
	} catch {
		return { ok: false, reason: 'malformed JSON' }
	}
	if (!value || typeof value !== 'object' || Array.isArray(value))
		return { ok: false, reason: 'a record must be a JSON object' }
	const type = value.type as RecordType
	if (!recordTypes.includes(type))
		return { ok: false, reason: `unknown type ${JSON.stringify(value.type ?? null)}` }
	const check: (v: unknown) => boolean = (v) => checkers[type].Check(v)
	if (!check(value)) return { ok: false, reason: firstError(type, value) }
	if (raw.includes('\\u') && badString(value))
		return { ok: false, reason: 'NUL character or lone surrogate in a string' }
	const createdAt = value.created_at as number | undefined
	if (createdAt !== undefined && createdAt > now + FUTURE_SLACK_MS)
		return { ok: false, reason: 'created_at is in the future' }
	if (type === 'like' && !value.post_external_id === !value.comment_external_id)
		return {
			ok: false,
			reason: 'a like needs exactly one of post_external_id, comment_external_id',
		}
	if (type === 'connection' && value.user_unique_id === value.target_user_unique_id)
		return { ok: false, reason: 'a user cannot connect to itself' }
	const columns = stageColumns[type]
	const render = raw.includes('\\') ? field : plainField
	let copyLine = String(line)
	for (let i = 1; i < columns.length - 1; i++)
		copyLine += `\t${render(value[columns[i] as string])}`
	copyLine += keepRaw ? `\t${field(raw)}\n` : '\t\\N\n'
	return { ok: true, type, copyLine, key: customerKey(type, value) }
}
