// The push provider's service-account file (SPEC PUT /sdk/project): eleven required
// string fields; extra fields are ignored.
import { t } from 'elysia'

const field = (description?: string) => t.String({ minLength: 1, maxLength: 10_000, description })

export const ServiceAccountFile = t.Object({
	type: field('must be service_account'),
	project_id: field(),
	private_key_id: field(),
	private_key: field('PEM private key'),
	client_email: field(),
	client_id: field(),
	auth_uri: field(),
	token_uri: field('OAuth 2 token endpoint used to obtain access tokens'),
	auth_provider_x509_cert_url: field(),
	client_x509_cert_url: field(),
	universe_domain: field(),
})

export const PutProjectBody = t.Object({ push_service_account_file: ServiceAccountFile })

export type ServiceAccount = typeof ServiceAccountFile.static
