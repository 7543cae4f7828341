// Project routes for the dashboard: PUT|GET /sdk/project (push provider credentials).
// Both need the owner's auth_token, the project's x-api-key and x-platform-type: dashboard.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { PutProjectBody } from './model'
import { assertDashboardProject, describeProject, savePushCredentials } from './service'

const headersDoc = {
	'x-api-key': 'the project API key',
	'x-platform-type': 'dashboard',
}

export const projectsModule = new Elysia({ name: 'projects' })
	.use(authPlugin)
	.put(
		'/sdk/project',
		async ({ session, headers, body }) => {
			const community = await assertDashboardProject(
				session,
				headers['x-api-key'],
				headers['x-platform-type'],
			)
			return {
				success: true,
				error_message: null,
				data: await savePushCredentials(community, body.push_service_account_file),
			}
		},
		{
			auth: 'owner',
			body: PutProjectBody,
			detail: {
				summary:
					'Store the push provider service-account file (encrypted; the private key is never returned)',
				description: `Headers: ${JSON.stringify(headersDoc)}`,
				tags: ['projects'],
			},
		},
	)
	.get(
		'/sdk/project',
		async ({ session, headers }) => {
			const community = await assertDashboardProject(
				session,
				headers['x-api-key'],
				headers['x-platform-type'],
			)
			return ok(await describeProject(community))
		},
		{
			auth: 'owner',
			detail: {
				summary: 'The project and its push credentials: project_id, client_email, private_key_id',
				description: `Headers: ${JSON.stringify(headersDoc)}`,
				tags: ['projects'],
			},
		},
	)
