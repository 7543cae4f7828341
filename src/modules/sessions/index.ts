// Session routes: POST|GET /sdk/initiate, POST /user/refresh, POST /user/logout.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { badRequest } from '../../lib/errors'
import { tokenFromHeader } from '../../lib/tokens'
import { authPlugin } from '../auth/plugin'
import { forgetDevice } from '../devices/service'
import { initiateSession } from './initiate'
import {
	InitiateBody,
	InitiateReply,
	LogoutReply,
	RefreshBody,
	SessionReply,
	TokensReply,
} from './model'
import { describeSession, logout, refreshSession } from './service'

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
			body: InitiateBody,
			response: { 200: InitiateReply },
			beforeHandle({ body }) {
				if (!body.user_unique_id && !body.uuid) throw badRequest('user_unique_id is required')
			},
			detail: { summary: 'Start a session for a user (created on first call)', tags: ['sessions'] },
		},
	)
	.get('/sdk/initiate', async ({ session }) => ok(await describeSession(session)), {
		auth: 'member',
		response: { 200: SessionReply },
		detail: { summary: 'The user and community of the current access token', tags: ['sessions'] },
	})
	.post(
		'/user/refresh',
		async ({ headers, body }) => {
			const token = tokenFromHeader(headers.authorization) ?? body?.refresh_token ?? null
			return ok(await refreshSession(token))
		},
		{
			body: RefreshBody,
			response: { 200: TokensReply },
			detail: { summary: 'Exchange a refresh token for a new pair (rotation)', tags: ['sessions'] },
		},
	)
	.post(
		'/user/logout',
		async ({ session, body, headers }) => {
			await logout(session, body?.refresh_token)
			await forgetDevice(session, headers['x-device-id'])
			return { success: true, error_message: null }
		},
		{
			auth: 'member',
			body: RefreshBody,
			response: { 200: LogoutReply },
			detail: {
				summary: 'Revoke the refresh token family (or all of the user)',
				tags: ['sessions'],
			},
		},
	)
