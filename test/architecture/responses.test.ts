// Response schemas hold no TypeBox Transform. Elysia's `t.Integer` is one (a request
// may send "12" for 12); a single Transform anywhere in a route's response schema makes
// Elysia walk every answer of that route with TypeBox's dynamic `Value.Encode` before
// its compiled check. Answers only ever hold numbers, so they use lib/response.ts `Int`.
import { describe, expect, test } from 'bun:test'
import { Kind, TransformKind } from '@sinclair/typebox'
import { app } from '../../src/app'

/** Where in `schema` a Transform sits ('' for none). */
function transformIn(schema: unknown, at: string, seen = new Set<unknown>()): string {
	if (!schema || typeof schema !== 'object' || seen.has(schema)) return ''
	seen.add(schema)
	const node = schema as Record<string | symbol, unknown>
	if (node[TransformKind]) return `${at} (${String(node[Kind])})`
	for (const [key, value] of Object.entries(node)) {
		const found = transformIn(value, `${at}.${key}`, seen)
		if (found) return found
	}
	return ''
}

describe('response schemas', () => {
	test('no route answers through a schema with a Transform', () => {
		const routes = app.routes as { method: string; path: string; hooks?: { response?: unknown } }[]
		const checked = routes.filter((r) => r.hooks?.response)
		expect(checked.length).toBeGreaterThan(30)
		const found = checked
			.map((r) => `${r.method} ${r.path}: ${transformIn(r.hooks?.response, 'response')}`)
			.filter((line) => !line.endsWith(': '))
		expect(found).toEqual([])
	})
})
