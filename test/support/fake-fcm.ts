// A real local peer playing Google's OAuth token endpoint and the FCM v1 send endpoint.
// It verifies every JWT assertion's RS256 signature with the public half of a key pair
// the test generated and checks iss, aud, scope and kid; it accepts sends only with an
// access token it issued, and records each message. Tests script its answers.
import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto'
import { jwtVerify } from 'jose'

export interface SentMessage {
	project: string
	token: string
	data: Record<string, string>
	message: Record<string, any>
	at: number
}

export type SendAnswer = (message: SentMessage, count: number) => Response | Promise<Response>

export interface FakeFcm {
	port: number
	baseUrl: string
	messages: SentMessage[]
	/** every assertion that passed verification */
	exchanges: number
	/** assertions refused (bad signature or claims), with the reason */
	refused: string[]
	answer: SendAnswer
	serviceAccount(projectId?: string): Record<string, string>
	/** forgets every issued access token (the next send is a 401) */
	revokeAccessTokens(): void
	to(token: string): SentMessage[]
	stop(): void
}

export const fcmError = (status: number, code: string, extra: Record<string, unknown> = {}) =>
	Response.json(
		{
			error: {
				code: status,
				status: code,
				message: code,
				details: [
					{
						'@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError',
						errorCode: code,
						...extra,
					},
				],
			},
		},
		{ status },
	)

export function startFakeFcm(port = Number(process.env.FAKE_FCM_PORT)): FakeFcm {
	const keys = generateKeyPairSync('rsa', { modulusLength: 2048 })
	const publicKey: KeyObject = keys.publicKey
	const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
	const keyId = `kid-${randomUUID()}`
	const clientEmail = 'push@plaza-fake.iam.gserviceaccount.com'
	const baseUrl = `http://127.0.0.1:${port}`
	const tokenUri = `${baseUrl}/token`
	let issued = new Set<string>()

	async function exchange(request: Request): Promise<Response> {
		const form = new URLSearchParams(await request.text())
		if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
			return Response.json({ error: 'unsupported_grant_type' }, { status: 400 })
		try {
			const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', publicKey, {
				algorithms: ['RS256'],
				issuer: clientEmail,
				audience: tokenUri,
			})
			if (protectedHeader.kid !== keyId) throw new Error(`kid ${protectedHeader.kid}`)
			if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging')
				throw new Error(`scope ${payload.scope}`)
		} catch (error) {
			fake.refused.push((error as Error).message)
			return Response.json({ error: 'invalid_grant' }, { status: 400 })
		}
		fake.exchanges++
		const token = `ya29.${randomUUID()}`
		issued.add(token)
		return Response.json({ access_token: token, expires_in: 3600, token_type: 'Bearer' })
	}

	async function send(request: Request, project: string): Promise<Response> {
		const bearer = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''
		if (!issued.has(bearer)) return fcmError(401, 'UNAUTHENTICATED')
		const { message } = (await request.json()) as { message: Record<string, any> }
		const sent: SentMessage = {
			project,
			token: message.token,
			data: message.data,
			message,
			at: Date.now(),
		}
		fake.messages.push(sent)
		return fake.answer(sent, fake.messages.length)
	}

	const server = Bun.serve({
		port,
		hostname: '127.0.0.1',
		async fetch(request) {
			const path = new URL(request.url).pathname
			if (request.method === 'POST' && path === '/token') return exchange(request)
			const match = path.match(/^\/v1\/projects\/([^/]+)\/messages:send$/)
			if (request.method === 'POST' && match) return send(request, decodeURIComponent(match[1]))
			return new Response('not found', { status: 404 })
		},
	})

	const fake: FakeFcm = {
		port,
		baseUrl,
		messages: [],
		exchanges: 0,
		refused: [],
		answer: (m) => Response.json({ name: `projects/${m.project}/messages/${randomUUID()}` }),
		serviceAccount: (projectId = 'plaza-fake') => ({
			type: 'service_account',
			project_id: projectId,
			private_key_id: keyId,
			private_key: privatePem,
			client_email: clientEmail,
			client_id: '1234567890',
			auth_uri: `${baseUrl}/auth`,
			token_uri: tokenUri,
			auth_provider_x509_cert_url: `${baseUrl}/certs`,
			client_x509_cert_url: `${baseUrl}/certs/push`,
			universe_domain: 'googleapis.com',
		}),
		revokeAccessTokens: () => {
			issued = new Set()
		},
		to: (token) => fake.messages.filter((m) => m.token === token),
		stop: () => server.stop(true),
	}
	return fake
}
