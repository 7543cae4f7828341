// The FCM HTTP v1 client: an OAuth2 access token from an RS256 JWT assertion signed
// with the project's service-account key (jose), exchanged at the stored token_uri and
// cached per service account until a minute before it expires; one send per device;
// and the provider's answer judged into an outcome. Tokens never reach a log line.
import { createPrivateKey } from 'node:crypto'
import { SignJWT } from 'jose'
import { config } from '../config'
import { fcmMessage, type PushData } from './message'

export interface ServiceAccount {
	project_id: string
	private_key_id: string
	private_key: string
	client_email: string
	token_uri: string
}

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const providerHosts = ['oauth2.googleapis.com', 'fcm.googleapis.com']

export class RefusedHostError extends Error {}

/** Push sending reaches the provider's hosts and PUSH_ALLOWED_HOSTS (`host` or `host:port`) only. */
export function assertAllowedHost(raw: string): URL {
	const url = new URL(raw)
	const allowed = [...providerHosts, ...config.pushAllowedHosts]
	if (!allowed.includes(url.host) && !allowed.includes(url.hostname))
		throw new RefusedHostError(`${url.host} is not in PUSH_ALLOWED_HOSTS`)
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		throw new RefusedHostError(`${url.protocol} is not http(s)`)
	return url
}

interface CachedToken {
	token: string
	expiresAt: number
}
const tokens = new Map<string, Promise<CachedToken>>()
const cacheKey = (a: ServiceAccount) => `${a.client_email}|${a.private_key_id}|${a.token_uri}`

export class TokenError extends Error {
	constructor(
		message: string,
		readonly retryable: boolean,
	) {
		super(message)
	}
}

async function fetchToken(account: ServiceAccount, timeoutMs: number): Promise<CachedToken> {
	const tokenUrl = assertAllowedHost(account.token_uri)
	const key = createPrivateKey({ key: account.private_key, format: 'pem' })
	const assertion = await new SignJWT({ scope: FCM_SCOPE })
		.setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: account.private_key_id })
		.setIssuer(account.client_email)
		.setAudience(account.token_uri)
		.setIssuedAt()
		.setExpirationTime('1h')
		.sign(key)
	let response: Response
	try {
		response = await fetch(tokenUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({
				grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
				assertion,
			}),
			redirect: 'manual',
			signal: AbortSignal.timeout(timeoutMs),
		})
	} catch (error) {
		throw new TokenError(`token endpoint unreachable: ${(error as Error).name}`, true)
	}
	const body = (await response.json().catch(() => null)) as {
		access_token?: string
		expires_in?: number
	} | null
	if (response.status !== 200 || typeof body?.access_token !== 'string') {
		const retryable = response.status === 429 || response.status >= 500
		throw new TokenError(`token endpoint answered HTTP ${response.status}`, retryable)
	}
	const lifetime = Number(body.expires_in ?? 3600) * 1000
	return { token: body.access_token, expiresAt: Date.now() + lifetime - 60_000 }
}

/** The cached access token of this service account, fetched when missing or near expiry. */
export async function accessToken(
	account: ServiceAccount,
	timeoutMs: number,
	fresh = false,
): Promise<string> {
	const key = cacheKey(account)
	const cached = tokens.get(key)
	if (cached && !fresh) {
		const value = await cached.catch(() => null)
		if (value && value.expiresAt > Date.now()) return value.token
	}
	// Concurrent sends of one project share one exchange.
	const pending = fetchToken(account, timeoutMs)
	tokens.set(key, pending)
	pending.catch(() => tokens.get(key) === pending && tokens.delete(key))
	return (await pending).token
}

export type SendOutcome =
	| { kind: 'sent' }
	| { kind: 'retry'; error: string; retryAfterMs: number | null }
	| { kind: 'token_invalid'; error: string }
	| { kind: 'unauthorized'; error: string }
	| { kind: 'auth_failing'; error: string }
	| { kind: 'failed'; error: string }

interface FcmError {
	error?: {
		status?: string
		message?: string
		details?: { errorCode?: string; fieldViolations?: { field?: string }[] }[]
	}
}

function retryAfter(response: Response): number | null {
	const value = response.headers.get('retry-after')
	if (!value) return null
	const seconds = Number(value)
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
	const at = Date.parse(value)
	return Number.isNaN(at) ? null : Math.max(0, at - Date.now())
}

/** The outcome of an FCM answer (the body is read only on errors). */
export async function judge(response: Response): Promise<SendOutcome> {
	if (response.status === 200) {
		void response.body?.cancel().catch(() => {})
		return { kind: 'sent' }
	}
	const body = ((await response.json().catch(() => null)) ?? {}) as FcmError
	const codes = (body.error?.details ?? []).map((d) => d.errorCode).filter(Boolean) as string[]
	const status = body.error?.status ?? ''
	const code = codes[0] ?? status
	const error = `HTTP ${response.status} ${code}`.trim()
	const aboutToken = (body.error?.details ?? []).some((d) =>
		(d.fieldViolations ?? []).some((v) => v.field === 'message.token'),
	)
	if (codes.includes('UNREGISTERED') || codes.includes('SENDER_ID_MISMATCH'))
		return { kind: 'token_invalid', error }
	if ((codes.includes('INVALID_ARGUMENT') || status === 'INVALID_ARGUMENT') && aboutToken)
		return { kind: 'token_invalid', error }
	if (codes.includes('THIRD_PARTY_AUTH_ERROR')) return { kind: 'auth_failing', error }
	if (response.status === 401) return { kind: 'unauthorized', error }
	if (response.status === 429 || response.status >= 500)
		return { kind: 'retry', error, retryAfterMs: retryAfter(response) }
	return { kind: 'failed', error }
}

export interface Device {
	token: string
	platform: string
}

/**
 * Sends one message. A 401 gets one fresh OAuth token and a second try; a 401 after
 * that means the credentials themselves are refused.
 */
export async function sendPush(
	account: ServiceAccount,
	device: Device,
	data: PushData,
	timeoutMs: number,
): Promise<SendOutcome> {
	const url = assertAllowedHost(
		`${config.FCM_BASE_URL.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`,
	)
	const body = JSON.stringify(fcmMessage(device.token, device.platform, data))
	for (let attempt = 0; attempt < 2; attempt++) {
		const token = await accessToken(account, timeoutMs, attempt > 0)
		let response: Response
		try {
			response = await fetch(url, {
				method: 'POST',
				headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
				body,
				redirect: 'manual',
				signal: AbortSignal.timeout(timeoutMs),
			})
		} catch (error) {
			const name = (error as Error).name
			const timedOut = name === 'TimeoutError' || name === 'AbortError'
			return {
				kind: 'retry',
				error: timedOut ? `timed out after ${timeoutMs} ms` : 'connection failed',
				retryAfterMs: null,
			}
		}
		const outcome = await judge(response)
		if (outcome.kind !== 'unauthorized') return outcome
		if (attempt > 0) return { kind: 'auth_failing', error: outcome.error }
	}
	return { kind: 'failed', error: 'unreachable' }
}
