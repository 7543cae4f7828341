// POST /logs: client error reports (chat-js ErrorLogging.pushLogs), accepted into the
// log stream, bounded and rate-limited per member.
import { Elysia } from 'elysia'
import { authPlugin } from '../auth/plugin'
import { PushLogsBody } from './model'
import { pushLogs } from './service'

export const clientLogsModule = new Elysia({ name: 'client-logs' }).use(authPlugin).post(
	'/logs',
	async ({ session, body }) => {
		await pushLogs(session, body)
		return { success: true as const, error_message: null }
	},
	{
		auth: 'member',
		body: PushLogsBody,
		detail: {
			summary: 'Client error reports (chat-js pushLogs): written to the log stream',
			tags: ['operations'],
		},
	},
)
