// One delivery attempt: check the address again, sign, POST, judge. Success is HTTP
// 200 within the timeout and nothing else; redirects are answers, not followed.
import { checkServerIdentity, type PeerCertificate } from 'node:tls'
import { decrypt } from '../lib/crypto'
import type { AttemptRow } from './repo'
import { secretKey, signatureHeaders } from './signing'
import { type AllowList, parseWebhookUrl, pinnedUrl, RefusedUrlError, resolveTarget } from './ssrf'

export interface SendResult {
	ok: boolean
	statusCode: number | null
	durationMs: number
	error: string | null
}

// Decrypting the secret on every attempt is wasted work; the sealed text is the key.
const keyCache = new Map<string, Buffer>()
function keyFor(sealed: string): Buffer {
	let key = keyCache.get(sealed)
	if (!key) {
		if (keyCache.size > 10_000) keyCache.clear()
		key = secretKey(decrypt(sealed))
		keyCache.set(sealed, key)
	}
	return key
}

/** The envelope of the spec; `data` is spliced in as stored (already JSON text). */
export function envelope(
	row: Pick<AttemptRow, 'event_id' | 'event_created_at' | 'event' | 'source' | 'data'>,
): string {
	const head = JSON.stringify({
		id: row.event_id,
		created_at: Number(row.event_created_at),
		event: row.event,
		source: row.source,
	})
	return `${head.slice(0, -1)},"data":${row.data}}`
}

export async function send(
	row: AttemptRow,
	attempt: number,
	timeoutMs: number,
	allow: AllowList,
): Promise<SendResult> {
	const started = performance.now()
	const elapsed = () => Math.round(performance.now() - started)
	try {
		const target = await resolveTarget(parseWebhookUrl(row.url), allow)
		const body = envelope(row)
		const headers = {
			'content-type': 'application/json',
			'user-agent': 'plaza-webhooks/1',
			host: target.url.host,
			'webhook-attempt': String(attempt),
			...signatureHeaders(
				keyFor(row.sealed_secret),
				row.event_id,
				Math.floor(Date.now() / 1000),
				body,
			),
		}
		const hostname = target.url.hostname
		const response = await fetch(pinnedUrl(target), {
			method: 'POST',
			headers,
			body,
			redirect: 'manual',
			signal: AbortSignal.timeout(timeoutMs),
			tls: {
				serverName: hostname,
				checkServerIdentity: (_host: string, cert: PeerCertificate) =>
					checkServerIdentity(hostname, cert),
			},
		})
		// The body is not needed; drop it so the connection can be reused.
		void response.body?.cancel().catch(() => {})
		const ok = response.status === 200
		const error = ok
			? null
			: response.status >= 300 && response.status < 400
				? `HTTP ${response.status} (redirects are not followed)`
				: `HTTP ${response.status}`
		return { ok, statusCode: response.status, durationMs: elapsed(), error }
	} catch (err) {
		return { ok: false, statusCode: null, durationMs: elapsed(), error: describe(err, timeoutMs) }
	}
}

function describe(err: unknown, timeoutMs: number): string {
	if (err instanceof RefusedUrlError) return `Refused: ${err.message}`
	const name = (err as { name?: string }).name
	if (name === 'TimeoutError' || name === 'AbortError') return `Timed out after ${timeoutMs} ms`
	return `Connection failed: ${(err as Error).message ?? String(err)}`.slice(0, 500)
}
