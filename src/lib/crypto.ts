// Hashing and encryption at rest. API keys and refresh tokens are stored as SHA-256
// (they are long random strings, so a fast hash is enough); OTP codes are HMACed with
// the secret key because six digits are easy to brute-force from a plain hash.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto'
import { config } from '../config'

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

export const hmac = (value: string) =>
	createHmac('sha256', config.SECRET_KEY).update(value).digest('hex')

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url')

const key = createHash('sha256').update(config.SECRET_KEY).digest()

/** AES-256-GCM; output is base64 of iv(12) | tag(16) | ciphertext. */
export function encrypt(plain: string): string {
	const iv = randomBytes(12)
	const cipher = createCipheriv('aes-256-gcm', key, iv)
	const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
	return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
}

export function decrypt(sealed: string): string {
	const raw = Buffer.from(sealed, 'base64')
	const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
	decipher.setAuthTag(raw.subarray(12, 28))
	return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}
