// The Idempotency-Key plugin: one pair of global hooks serving every POST route. Before
// the handler it claims the key for (caller, method and path) or replays the first
// answer; after the response it stores that answer. Callers are told apart by their
// verified access token (community and user) or their API key (POST /sdk/initiate);
// a request with neither runs unkeyed (its route answers 401 anyway).
import { Elysia } from 'elysia'
import { sha256 } from '../../lib/crypto'
import { badRequest } from '../../lib/errors'
import { log } from '../../lib/log'
import { tokenFromHeader, verifyAccessToken } from '../../lib/tokens'
import type { KeyRef } from './repo'
import { fingerprintOf, finishKeyed, KEY_PATTERN, startKeyed } from './service'

const claimed = new WeakMap<Request, KeyRef>()

async function callerScope(headers: Record<string, string | undefined>): Promise<string | null> {
	const token = tokenFromHeader(headers.authorization)
	const claims = token ? await verifyAccessToken(token) : null
	if (claims) return `c${claims.cid}:u${claims.uid}`
	const apiKey = headers['x-api-key']
	return apiKey ? `k:${sha256(apiKey)}` : null
}

/** The answer as stored: JSON bodies only (a streamed or raw Response is not replayable). */
function storedBody(value: unknown): string | null {
	if (value instanceof Response || value === undefined || typeof value === 'function') return null
	return JSON.stringify(value)
}

export const idempotencyPlugin = new Elysia({ name: 'idempotency' })
	.onBeforeHandle({ as: 'global' }, async ({ request, headers, body }) => {
		const key = headers['idempotency-key']
		if (request.method !== 'POST' || key === undefined) return
		if (!KEY_PATTERN.test(key))
			throw badRequest('Idempotency-Key must be 1 to 200 visible ASCII characters')
		const scope = await callerScope(headers)
		if (!scope) return
		const ref = { scope, route: `POST ${new URL(request.url).pathname}`, key }
		const start = await startKeyed(ref, fingerprintOf(body))
		if (start.run) {
			claimed.set(request, ref)
			return
		}
		return new Response(start.body, {
			status: start.status,
			headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' },
		})
	})
	.onAfterResponse({ as: 'global' }, async (context) => {
		const { request, set, responseValue } = context
		const ref = claimed.get(request)
		if (!ref) return
		claimed.delete(request)
		const status = typeof set.status === 'number' ? set.status : 200
		try {
			await finishKeyed(ref, status, storedBody(responseValue))
		} catch (error) {
			// The claim stays: a repeat gets a 409 once it expires, never a second write.
			log.error({ err: error, route: ref.route }, 'idempotency answer not stored')
		}
	})
