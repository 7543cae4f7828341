// The HTTP application: cross-cutting hooks, one error handler, and every feature
// module. No listen here, so tests drive it through app.handle().
import { Elysia } from 'elysia'
import { assertSupportedVersion, clientIp, readClientInfo } from './lib/client'
import { failure } from './lib/envelope'
import { AppError } from './lib/errors'
import {
	assertCleanParams,
	assertCleanQuery,
	assertDeclaredLength,
	assertHeaderSize,
	parseBody,
} from './lib/input-limits'
import { log } from './lib/log'
import { requestDuration } from './lib/metrics'
import { openapiDocs } from './lib/openapi'
import { ipLimited, limitIp, startIpLimit } from './lib/rate-limit'
import { isRedisUnavailable } from './lib/redis-errors'
import { validationMessage } from './lib/validation-message'
import { notificationsModule } from './modules/activity-feed'
import { authorizeEarly, authTransforms, type Needed } from './modules/auth/plugin'
import { chatHomeModule } from './modules/chat-home'
import { chatroomsModule } from './modules/chatrooms'
import { clientLogsModule } from './modules/client-logs'
import { cohortsModule } from './modules/cohorts'
import { connectionsModule } from './modules/connections'
import { blocksModule } from './modules/connections/blocks'
import { conversationsModule } from './modules/conversations'
import { dashboardModule } from './modules/dashboard'
import { devicesModule } from './modules/devices'
import { dmsModule } from './modules/dms'
import { feedsModule } from './modules/feeds'
import { healthModule } from './modules/health'
import { idempotencyPlugin } from './modules/idempotency'
import { linkPreviewsModule } from './modules/link-previews'
import { liveModule } from './modules/live'
import { membersModule } from './modules/members'
import { migrationModule } from './modules/migration'
import { moderationModule } from './modules/moderation'
import { pollsModule } from './modules/polls'
import { postsModule } from './modules/posts'
import { commentsModule } from './modules/posts/comments'
import { feedPollsModule } from './modules/posts/polls'
import { reactionsModule } from './modules/posts/reactions'
import { projectsModule } from './modules/projects'
import { reportsModule } from './modules/reports'
import { searchModule } from './modules/search'
import { sessionsModule } from './modules/sessions'
import { otpModule } from './modules/sessions/otp'
import { settingsModule } from './modules/settings'
import { topicsModule } from './modules/topics'
import { webhooksModule } from './modules/webhooks'
import { widgetsModule } from './modules/widgets'

const startedAt = new WeakMap<Request, number>()

export const app = new Elysia()
	.onRequest(async ({ request, server }) => {
		startedAt.set(request, performance.now())
		const url = new URL(request.url)
		const pathname = url.pathname
		assertHeaderSize(request, url)
		assertDeclaredLength(request, pathname)
		assertSupportedVersion(readClientInfo(request.headers))
		if (pathname.match(/^\/(health|ready|metrics)$/)) return
		const ip = clientIp(request, server)
		// With a token, the IP limit's INCR goes out now and is settled with the auth
		// check's own commands (one round trip less on the hot path); without one, here.
		if (request.headers.has('authorization')) startIpLimit(request, ip)
		else await limitIp(ip)
	})
	// Every body goes through the bounded parser (lib/input-limits), never Elysia's own,
	// and on a route that needs a token only once the token is valid.
	.onParse(async ({ request, contentType, route }) => {
		const needed = guardedRoutes().get(`${request.method} ${route}`)
		// The auth check awaits the IP limit with its own commands; otherwise await it here.
		await (needed ? authorizeEarly(request, needed) : ipLimited(request))
		return parseBody(request, contentType)
	})
	// Query values and path ids are checked before any schema or SQL sees them.
	// Routes without a token or a body: the IP limit is settled before the handler runs.
	.onBeforeHandle(({ request }) => ipLimited(request))
	.onTransform(({ query, params }) => {
		if (query) assertCleanQuery(query)
		if (params) assertCleanParams(params as Record<string, string | undefined>)
	})
	.onError(({ error: thrown, code, set, request }) => {
		// A throw inside a parser reaches here wrapped in Elysia's ParseError.
		const cause = (thrown as { cause?: unknown }).cause
		const error = code === 'PARSE' && cause instanceof AppError ? cause : thrown
		if (error instanceof AppError) {
			set.status = error.status
			Object.assign(set.headers, error.headers)
			return failure(error.message)
		}
		switch (code) {
			case 'VALIDATION':
				// An answer that does not match its route's response schema is our bug, not bad input.
				if (thrown.type === 'response') {
					log.error({ err: thrown, url: request.url }, 'answer does not match its response schema')
					set.status = 500
					return failure('Internal server error')
				}
				set.status = 400
				return failure(validationMessage(thrown, thrown.type, request.url))
			case 'PARSE':
				set.status = 400
				return failure('Malformed request body')
			case 'NOT_FOUND':
				set.status = 404
				return failure('Route not found')
		}
		const status = (error as { status?: number }).status
		if (typeof status === 'number' && status >= 400 && status < 500) {
			set.status = status
			return failure((error as Error).message || 'Bad request')
		}
		if (isRedisUnavailable(error)) {
			log.warn({ err: (error as Error).message, url: request.url }, 'redis unavailable')
			set.status = 503
			set.headers['retry-after'] = '5'
			return failure('Service temporarily unavailable, retry shortly')
		}
		log.error({ err: error, url: request.url }, 'unhandled error')
		set.status = 500
		return failure('Internal server error')
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
	.use(openapiDocs)
	.use(healthModule)
	.use(idempotencyPlugin)
	.use(sessionsModule)
	.use(otpModule)
	.use(settingsModule)
	.use(connectionsModule)
	.use(blocksModule)
	.use(moderationModule)
	.use(membersModule)
	.use(reportsModule)
	.use(projectsModule)
	.use(widgetsModule)
	.use(topicsModule)
	.use(postsModule)
	.use(reactionsModule)
	.use(commentsModule)
	.use(feedPollsModule)
	.use(feedsModule)
	.use(webhooksModule)
	.use(migrationModule)
	.use(dashboardModule)
	.use(chatroomsModule)
	.use(conversationsModule)
	.use(pollsModule)
	.use(cohortsModule)
	.use(notificationsModule)
	.use(devicesModule)
	.use(clientLogsModule)
	.use(linkPreviewsModule)
	.use(dmsModule)
	.use(searchModule)
	.use(chatHomeModule)
	.use(liveModule)

let guarded: Map<string, Needed> | undefined
/** `METHOD /path` → role, for every route using the auth macro (found by its transform hook). */
function guardedRoutes(): Map<string, Needed> {
	if (guarded) return guarded
	guarded = new Map()
	for (const route of app.routes) {
		for (const hook of (route.hooks as { transform?: unknown[] }).transform ?? []) {
			const fn = typeof hook === 'function' ? hook : (hook as { fn?: object })?.fn
			const needed = fn && authTransforms.get(fn)
			if (needed) guarded.set(`${route.method} ${route.path}`, needed)
		}
	}
	return guarded
}

export type App = typeof app
