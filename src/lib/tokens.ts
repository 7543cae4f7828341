// Access tokens: HS256 JWTs signed by @elysiajs/jwt. The plugin's signer is exported
// so services can issue tokens without touching a request context.
import { jwt } from '@elysiajs/jwt'
import { config } from '../config'

export type Role = 'member' | 'cm' | 'owner'

export interface AccessClaims {
	sub: string // user uuid
	uid: number
	cid: number
	role: Role
}

export const jwtPlugin = jwt({ name: 'jwt', secret: config.JWT_SECRET, alg: 'HS256' })

const signer = jwtPlugin.decorator.jwt

export function signAccessToken(claims: AccessClaims, minutes = config.ACCESS_TOKEN_MINUTES) {
	const exp = Math.floor(Date.now() / 1000) + minutes * 60
	return signer.sign({ ...claims, exp })
}

export async function verifyAccessToken(token: string): Promise<AccessClaims | null> {
	const payload = await signer.verify(token)
	if (!payload || typeof payload.sub !== 'string' || typeof payload.uid !== 'number') return null
	return payload as unknown as AccessClaims
}

/** Both forms of the header: `Bearer <token>` and the bare token. */
export function tokenFromHeader(header: string | undefined): string | null {
	if (!header) return null
	const value = header.trim()
	const token = /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, '') : value
	return token.length > 0 ? token : null
}
