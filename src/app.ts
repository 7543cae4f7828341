// The HTTP application: cross-cutting hooks, one error handler, and every feature
// module. No listen here, so tests drive it through app.handle().
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { config } from './config'
import { assertSupportedVersion, clientIp, readClientInfo } from './lib/client'
import { AppError, badRequest } from './lib/errors'
import { log } from './lib/log'
import { requestDuration } from './lib/metrics'
import { limitIp } from './lib/rate-limit'
import { validationMessage } from './lib/validation-message'
import { connectionsModule } from './modules/connections'
import { dashboardModule } from './modules/dashboard'
import { feedsModule } from './modules/feeds'
import { healthModule } from './modules/health'
import { idempotencyPlugin } from './modules/idempotency'
import { moderationModule } from './modules/moderation'
import { postsModule } from './modules/posts'
import { commentsModule } from './modules/posts/comments'
import { reactionsModule } from './modules/posts/reactions'
import { projectsModule } from './modules/projects'
import { sessionsModule } from './modules/sessions'
import { settingsModule } from './modules/settings'
import { topicsModule } from './modules/topics'
import { webhooksModule } from './modules/webhooks'
import { widgetsModule } from './modules/widgets'

const startedAt = new WeakMap<Request, number>()

export const app = new Elysia()
	.onRequest(async ({ request, server }) => {
		startedAt.set(request, performance.now())
		const length = Number(request.headers.get('content-length') ?? 0)
		if (length > config.MAX_BODY_BYTES)
			throw new AppError(413, `Request body larger than ${config.MAX_BODY_BYTES} bytes`)
		assertSupportedVersion(readClientInfo(request.headers))
		if (!new URL(request.url).pathname.match(/^\/(health|ready|metrics)$/))
			await limitIp(clientIp(request, server))
	})
	// Bodies are JSON (forms too, as Elysia parses them). JSON sent as text/plain
	// (sendBeacon, some SDKs) is read as JSON; any other body is a 400 saying so, rather
	// than a string that fails the route's checks with a confusing message.
	.onParse(async ({ request, contentType }) => {
		if (!contentType || /json|x-www-form-urlencoded|multipart\/form-data/i.test(contentType)) return
		const text = await request.text()
		if (text.trim() === '') return {}
		try {
			return JSON.parse(text)
		} catch {
			throw badRequest(
				`Request body must be JSON (Content-Type: application/json), got ${contentType}`,
			)
		}
	})
	.onError(({ error: thrown, code, set, request }) => {
		// A throw inside a parser reaches here wrapped in Elysia's ParseError.
		const cause = (thrown as { cause?: unknown }).cause
		const error = code === 'PARSE' && cause instanceof AppError ? cause : thrown
		if (error instanceof AppError) {
			set.status = error.status
			Object.assign(set.headers, error.headers)
			return { success: false, error_message: error.message }
		}
		switch (code) {
			case 'VALIDATION':
				set.status = 400
				return {
					success: false,
					error_message: validationMessage(thrown, thrown.type, request.url),
				}
			case 'PARSE':
				set.status = 400
				return { success: false, error_message: 'Malformed request body' }
			case 'NOT_FOUND':
				set.status = 404
				return { success: false, error_message: 'Route not found' }
		}
		const status = (error as { status?: number }).status
		if (typeof status === 'number' && status >= 400 && status < 500) {
			set.status = status
			return { success: false, error_message: (error as Error).message || 'Bad request' }
		}
		log.error({ err: error, url: request.url }, 'unhandled error')
		set.status = 500
		return { success: false, error_message: 'Internal server error' }
	})
	.onAfterResponse(({ request, route, set }) => {
		const start = startedAt.get(request)
		if (start === undefined) return
		const seconds = (performance.now() - start) / 1000
		const status = String(set.status ?? 200)
		requestDuration.observe(
			{ method: request.method, route: route || 'unmatched', status },
			seconds,
		)
		log.info(
			{ method: request.method, route, status: Number(status), ms: Math.round(seconds * 1000) },
			'request',
		)
	})
	.use(openapi({ path: '/openapi', documentation: { info: { title: 'plaza', version: '0.1.0' } } }))
	.use(healthModule)
	.use(idempotencyPlugin)
	.use(sessionsModule)
	.use(settingsModule)
	.use(connectionsModule)
	.use(moderationModule)
	.use(projectsModule)
	.use(widgetsModule)
	.use(topicsModule)
	.use(postsModule)
	.use(reactionsModule)
	.use(commentsModule)
	.use(feedsModule)
	.use(webhooksModule)
	.use(dashboardModule)

export type App = typeof app
