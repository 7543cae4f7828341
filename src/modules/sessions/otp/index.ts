// Dashboard login routes: GET /otp/generate and GET /otp/verify. Both sit behind a
// stricter per-IP limit than the rest of the API, on top of the per-number limits.
import { Elysia } from 'elysia'
import { config } from '../../../config'
import { clientIp } from '../../../lib/client'
import { ok } from '../../../lib/envelope'
import { isLoopbackRequest } from '../../../lib/loopback'
import { limit } from '../../../lib/rate-limit'
import { OtpGenerateQuery, OtpVerifyQuery } from './model'
import { generateOtp, verifyOtp } from './service'

const otpLimit = (request: Request, server: Parameters<typeof clientIp>[1]) =>
	limit('ip', `otp:${clientIp(request, server)}`, config.OTP_RATE_LIMIT_PER_MINUTE)

export const otpModule = new Elysia({ name: 'otp' })
	.get(
		'/otp/generate',
		async ({ query, request, server }) =>
			ok(await generateOtp(query, isLoopbackRequest(request, server))),
		{
			query: OtpGenerateQuery,
			beforeHandle: ({ request, server }) => otpLimit(request, server),
			detail: {
				summary: 'Send a one-time password to a registered owner number',
				tags: ['dashboard'],
			},
		},
	)
	.get(
		'/otp/verify',
		async ({ query, request, server }) =>
			ok(await verifyOtp(query, isLoopbackRequest(request, server))),
		{
			query: OtpVerifyQuery,
			beforeHandle: ({ request, server }) => otpLimit(request, server),
			detail: {
				summary: 'Exchange the code for the owner auth_token and refresh_token',
				tags: ['dashboard'],
			},
		},
	)
