// The 400 message for input Elysia's validators reject: the first issue, in words,
// naming the field and the value, never the validator's JSON.
interface ValidationIssue {
	path?: string
	message: string
	summary?: string
	value?: unknown
	/** the schema that failed; its `error`, when a string, is the message a route chose */
	schema?: { error?: unknown }
}

const kinds: Record<string, string> = {
	integer: 'an integer',
	numeric: 'a number',
	number: 'a number',
	boolean: 'true or false',
}

/** The query field holding `value`: a coerced query number is validated alone, without its name. */
function queryFieldOf(url: string, value: unknown): string {
	if (typeof value !== 'number') return ''
	const names = [...new URL(url).searchParams].filter(([, v]) => Number(v) === value)
	return names.length === 1 ? names[0][0] : ''
}

/** `Invalid <where>: <field> <problem> (got <value>)` from the first issue, never the validator's JSON. */
export function validationMessage(error: { all?: ValidationIssue[] }, type: string, url: string) {
	const first = error.all?.[0]
	const where = type === 'property' ? 'query' : type
	if (!first) return `Invalid ${where}`
	const path = first.path ? first.path.replace(/^\//, '').replaceAll('/', '.') : ''
	const field = path || (type === 'property' ? queryFieldOf(url, first.value) : '')
	// Query numbers and booleans are unions of the value and its string form; name the kind.
	const kind = /should be one of: '(\w+)'/.exec(first.summary ?? '')?.[1]
	const problem = kind && kinds[kind] ? `must be ${kinds[kind]}` : (first.summary ?? first.message)
	const shown = ['string', 'number', 'boolean'].includes(typeof first.value)
	const got = shown ? ` (got ${JSON.stringify(first.value).slice(0, 100)})` : ''
	// A schema's own `error` names its field and range already ("noti_state must be 1, 2 or 3").
	const chosen = first.schema?.error
	if (typeof chosen === 'string') return `Invalid ${where}: ${chosen}${got}`
	return `Invalid ${where}: ${field ? `${field} ` : ''}${problem}${got}`
}
