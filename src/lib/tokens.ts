// Access tokens: HS256 JWTs, verified by @elysiajs/jwt (jose). Signed here with a
// synchronous HMAC (node:crypto): jose's SignJWT goes through WebCrypto's async sign and
// its claims builder, an eighth of an app launch's CPU (POST /sdk/initiate), for the
// same bytes — a compact JWS is base64url(header).base64url(claims).base64url(HMAC).
import { createHmac } from 'node:crypto'
import { jwt } from '@elysiajs/jwt'
import { config } from '../config'

export type Role = 'member' | 'cm' | 'owner'

export interface AccessClaims {
	sub: string // user uuid
	uid: number
	cid: number
	role: Role
	/** The refresh-token family (the login) the token belongs to; revocation checks it. */
	fid?: string
	iat?: number
}

/** No access token lives longer than a day, whatever a project or client asks (issue 15). */
export const MAX_ACCESS_TOKEN_MINUTES = 24 * 60

export const jwtPlugin = jwt({ name: 'jwt', secret: config.JWT_SECRET, alg: 'HS256' })

const signer = jwtPlugin.decorator.jwt
const base64url = (text: string) => Buffer.from(text).toString('base64url')
// The header the plugin writes, so tokens look the same whoever signed them.
const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))

/** Signs with `iat` now and `exp` at most a day later. */
export async function signAccessToken(
	claims: Omit<AccessClaims, 'iat'>,
	minutes = config.ACCESS_TOKEN_MINUTES,
): Promise<string> {
	const iat = Math.floor(Date.now() / 1000)
	const exp = iat + Math.min(minutes, MAX_ACCESS_TOKEN_MINUTES) * 60
	const signed = `${HEADER}.${base64url(JSON.stringify({ ...claims, iat, exp }))}`
	const signature = createHmac('sha256', config.JWT_SECRET).update(signed).digest('base64url')
	return `${signed}.${signature}`
}

// Verified tokens, so a client's repeated token skips the HMAC check (it was ~12% of
// a feed request's CPU). Bounded LRU (a Map keeps insertion order: a hit is moved to
// the end, the first key is the oldest); an entry is used only before the token's own
// `exp`, so caching never extends a token's life. Only valid tokens are cached: a
// forged one cannot fill the cache.
const VERIFIED_MAX = 10_000
const verified = new Map<string, { claims: AccessClaims; expMs: number }>()

function cachedClaims(token: string): AccessClaims | null {
	const hit = verified.get(token)
	if (!hit) return null
	verified.delete(token)
	if (hit.expMs <= Date.now()) return null
	verified.set(token, hit)
	return hit.claims
}

function remember(token: string, claims: AccessClaims, exp: number) {
	if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string)
	verified.set(token, { claims, expMs: exp * 1000 })
}

export async function verifyAccessToken(token: string): Promise<AccessClaims | null> {
	const cached = cachedClaims(token)
	if (cached) return cached
	const payload = await signer.verify(token)
	if (!payload || typeof payload.sub !== 'string' || typeof payload.uid !== 'number') return null
	const claims = payload as unknown as AccessClaims
	// A token must expire, and within a day: one signed before the 24 h cap with a longer
	// life (token_expiry_beta once allowed 30 days) is refused.
	const latestExp = Date.now() / 1000 + MAX_ACCESS_TOKEN_MINUTES * 60 + 60
	if (typeof payload.exp !== 'number' || payload.exp > latestExp) return null
	remember(token, claims, payload.exp)
	return claims
}

/** Both forms of the header: `Bearer <token>` and the bare token. */
export function tokenFromHeader(header: string | undefined): string | null {
	if (!header) return null
	const value = header.trim()
	const token = /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, '') : value
	return token.length > 0 ? token : null
}
