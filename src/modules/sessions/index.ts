// Session routes: POST|GET /sdk/initiate, POST /user/refresh, POST /user/logout.
import { Elysia, t } from 'elysia'
import { ok } from '../../lib/envelope'
import { tokenFromHeader } from '../../lib/tokens'
import { authPlugin } from '../auth/plugin'
import { describeSession, initiateSession, logout, refreshSession } from './service'

export const sessionsModule = new Elysia({ name: 'sessions' })
	.use(authPlugin)
	.post(
		'/sdk/initiate',
		async ({ body, headers }) => {
			const userUniqueId = body.user_unique_id ?? body.uuid
			const data = await initiateSession({
				apiKey: headers['x-api-key'] ?? body.apikey ?? null,
				userUniqueId: userUniqueId as string,
				userName: body.user_name,
				imageUrl: body.image_url,
				isGuest: body.is_guest,
				tokenExpiryMinutes: body.token_expiry_beta,
			})
			return ok(data)
		},
		{
			body: t.Object({
				user_unique_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
				uuid: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
				user_name: t.Optional(t.String({ maxLength: 200 })),
				image_url: t.Optional(t.String({ maxLength: 2000 })),
				is_guest: t.Optional(t.Boolean()),
				token_expiry_beta: t.Optional(t.Integer({ minimum: 1, maximum: 60 * 24 * 30 })),
				apikey: t.Optional(t.String()),
			}),
			beforeHandle({ body, status }) {
				if (!body.user_unique_id && !body.uuid) {
					return status(400, { success: false, error_message: 'user_unique_id is required' })
				}
			},
			detail: { summary: 'Start a session for a user (created on first call)', tags: ['sessions'] },
		},
	)
	.get('/sdk/initiate', async ({ session }) => ok(await describeSession(session.userId)), {
		auth: 'member',
		detail: { summary: 'The user and community of the current access token', tags: ['sessions'] },
	})
	.post(
		'/user/refresh',
		async ({ headers, body }) => {
			const token = tokenFromHeader(headers.authorization) ?? body?.refresh_token ?? null
			return ok(await refreshSession(token))
		},
		{
			body: t.Optional(t.Object({ refresh_token: t.Optional(t.String()) })),
			detail: { summary: 'Exchange a refresh token for a new pair (rotation)', tags: ['sessions'] },
		},
	)
	.post(
		'/user/logout',
		async ({ session, body }) => {
			await logout(session.userId, body?.refresh_token)
			return { success: true, error_message: null }
		},
		{
			auth: 'member',
			body: t.Optional(t.Object({ refresh_token: t.Optional(t.String()) })),
			detail: {
				summary: 'Revoke the refresh token family (or all of the user)',
				tags: ['sessions'],
			},
		},
	)
