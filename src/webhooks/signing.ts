// Standard Webhooks signing (https://www.standardwebhooks.com): each webhook has its own
// `whsec_` secret (base64 of 24 random bytes); the HMAC key is the decoded bytes.
import { createHmac, randomBytes } from 'node:crypto'

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`

export const secretKey = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64')

/** Headers for one attempt: `webhook-id` is the event id, identical on every retry. */
export function signatureHeaders(
	key: Buffer,
	eventId: string,
	timestampSeconds: number,
	body: string,
) {
	const signed = createHmac('sha256', key)
		.update(`${eventId}.${timestampSeconds}.${body}`)
		.digest('base64')
	return {
		'webhook-id': eventId,
		'webhook-timestamp': String(timestampSeconds),
		'webhook-signature': `v1,${signed}`,
		'x-signature': createHmac('sha256', key).update(body).digest('hex'),
	}
}
