import { beforeAll, describe, expect, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { loadServiceAccount } from '../../src/modules/projects/service'
import { newCommunity, newUser, ownerToken, type TestCommunity } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

const keys = generateKeyPairSync('rsa', {
	modulusLength: 2048,
	privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
	publicKeyEncoding: { type: 'spki', format: 'pem' },
})

const serviceAccount = (overrides: Record<string, unknown> = {}) => ({
	type: 'service_account',
	project_id: 'plaza-push-test',
	private_key_id: 'key-1',
	private_key: keys.privateKey,
	client_email: 'push@plaza-push-test.iam.gserviceaccount.com',
	client_id: '1234567890',
	auth_uri: 'https://accounts.google.com/o/oauth2/auth',
	token_uri: 'https://oauth2.googleapis.com/token',
	auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
	client_x509_cert_url: 'https://www.googleapis.com/robot/v1/metadata/x509/push',
	universe_domain: 'googleapis.com',
	...overrides,
})

let community: TestCommunity
let other: TestCommunity
let owner: string
let otherOwner: string

function call(
	method: 'GET' | 'PUT',
	options: { token?: string; apiKey?: string; platform?: string | null; body?: unknown } = {},
) {
	const headers: Record<string, string> = {}
	if (options.platform !== null) headers['x-platform-type'] = options.platform ?? 'dashboard'
	return api(method, '/sdk/project', {
		token: options.token ?? owner,
		apiKey: options.apiKey ?? community.apiKey,
		headers,
		body: options.body,
	})
}

beforeAll(async () => {
	community = await newCommunity('push-credentials')
	other = await newCommunity('push-credentials-other')
	owner = await ownerToken(community)
	otherOwner = await ownerToken(other)
})

describe('PUT and GET /sdk/project', () => {
	test('stores the file encrypted and never shows the private key', async () => {
		const empty = await call('GET')
		expect(empty.status).toBe(200)
		expect(empty.body.data).toEqual({
			project: {
				id: community.projectId,
				name: 'push-credentials',
				community_id: community.communityId,
			},
			push_service_account_file: null,
		})

		const put = await call('PUT', { body: { push_service_account_file: serviceAccount() } })
		expect(put.status).toBe(200)
		expect(put.body.data.push_service_account_file).toMatchObject({
			project_id: 'plaza-push-test',
			client_email: 'push@plaza-push-test.iam.gserviceaccount.com',
			private_key_id: 'key-1',
		})
		const got = await call('GET')
		expect(got.body.data.push_service_account_file).toEqual(put.body.data.push_service_account_file)
		for (const reply of [put, got]) expect(JSON.stringify(reply.body)).not.toContain('PRIVATE KEY')

		const [row] =
			await sql`select sealed_file from push_credentials where project_id = ${community.projectId}`
		expect(row.sealed_file).not.toContain('PRIVATE')
		expect(Buffer.from(row.sealed_file, 'base64').toString('latin1')).not.toContain('PRIVATE KEY')
		const opened = await loadServiceAccount(community.projectId)
		expect(opened?.private_key).toBe(keys.privateKey)
		expect(opened?.client_id).toBe('1234567890')
	})

	test('a second upload replaces the first; escaped newlines in the key are accepted', async () => {
		const escaped = keys.privateKey.replaceAll('\n', '\\n')
		const put = await call('PUT', {
			body: {
				push_service_account_file: serviceAccount({
					private_key: escaped,
					private_key_id: 'key-2',
				}),
			},
		})
		expect(put.status).toBe(200)
		expect((await call('GET')).body.data.push_service_account_file.private_key_id).toBe('key-2')
		expect((await loadServiceAccount(community.projectId))?.private_key).toBe(keys.privateKey)
	})

	test('every one of the eleven fields is a required string', async () => {
		for (const name of Object.keys(serviceAccount())) {
			const missing = serviceAccount()
			delete (missing as Record<string, unknown>)[name]
			const reply = await call('PUT', { body: { push_service_account_file: missing } })
			expect(reply.status, name).toBe(400)
			expect(reply.body.error_message).toContain(name)
			const wrongType = await call('PUT', {
				body: { push_service_account_file: serviceAccount({ [name]: 42 }) },
			})
			expect(wrongType.status, name).toBe(400)
		}
	})

	test('content rules: type, PEM private key, URLs; bad JSON', async () => {
		const cases: [Record<string, unknown>, string][] = [
			[{ type: 'authorized_user' }, 'push_service_account_file.type must be service_account'],
			[
				{ private_key: 'not a key' },
				'push_service_account_file.private_key is not a valid PEM private key',
			],
			[
				{ private_key: keys.publicKey },
				'push_service_account_file.private_key is not a valid PEM private key',
			],
			[
				{ token_uri: 'oauth2.googleapis.com/token' },
				'push_service_account_file.token_uri must be an http(s) URL',
			],
		]
		for (const [override, message] of cases) {
			const reply = await call('PUT', {
				body: { push_service_account_file: serviceAccount(override) },
			})
			expect(reply.status).toBe(400)
			expect(reply.body).toEqual({ success: false, error_message: message })
		}
		expect((await call('PUT', { body: {} })).status).toBe(400)
		expect((await call('PUT', { body: { push_service_account_file: 'x' } })).status).toBe(400)
		const malformed = await api('PUT', '/sdk/project', {
			token: owner,
			apiKey: community.apiKey,
			headers: { 'x-platform-type': 'dashboard' },
			rawBody: '{"push_service_account_file":',
		})
		expect(malformed.status).toBe(400)
		// Nothing of the refused uploads was stored.
		expect((await call('GET')).body.data.push_service_account_file.private_key_id).toBe('key-2')
	})

	test('only the owner: members and CMs are 403, no token is 401', async () => {
		const member = await newUser(community)
		const cm = await newUser(community, { role: 'cm' })
		const body = { push_service_account_file: serviceAccount() }
		for (const token of [member.token, cm.token]) {
			expect((await call('PUT', { token, body })).status).toBe(403)
			expect((await call('GET', { token })).status).toBe(403)
		}
		const anonymous = await api('GET', '/sdk/project', {
			apiKey: community.apiKey,
			headers: { 'x-platform-type': 'dashboard' },
		})
		expect(anonymous.status).toBe(401)
	})

	test('x-platform-type must be dashboard; x-api-key must be the token’s own project', async () => {
		const noPlatform = await call('GET', { platform: null })
		expect(noPlatform.status).toBe(400)
		expect(noPlatform.body.error_message).toBe('x-platform-type must be dashboard')
		expect((await call('GET', { platform: 'an' })).status).toBe(400)

		const noKey = await api('GET', '/sdk/project', {
			token: owner,
			headers: { 'x-platform-type': 'dashboard' },
		})
		expect(noKey.status).toBe(401)
		expect((await call('GET', { apiKey: 'plz_unknown' })).status).toBe(401)

		// Another project's owner with this project's key: refused, nothing changes.
		const foreign = await call('PUT', {
			token: otherOwner,
			body: { push_service_account_file: serviceAccount({ private_key_id: 'evil' }) },
		})
		expect(foreign.status).toBe(403)
		expect((await call('GET', { token: otherOwner })).status).toBe(403)
		expect((await call('GET')).body.data.push_service_account_file.private_key_id).toBe('key-2')
		// With its own key it sees its own (empty) project.
		const own = await call('GET', { token: otherOwner, apiKey: other.apiKey })
		expect(own.body.data.push_service_account_file).toBeNull()
	})
})
