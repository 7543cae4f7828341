// Live updates' HTTP face (the engine is src/live): `POST /live/ticket`, the WebSocket
// `GET /live` and the SSE stream `GET /live/events`. Both streams are authenticated
// before the upgrade or the first byte; docs/live.md is the protocol.
import type { ServerWebSocket } from 'bun'
import { Elysia, t } from 'elysia'
import { AppError } from '../../lib/errors'
import { isStreamId, LIVE_LIMITS, LiveConnection, register, useServer } from '../../live'
import { authPlugin } from '../auth/plugin'
import {
	callerOf,
	holderOf,
	issueTicket,
	type LiveCaller,
	liveCaller,
	parseCursors,
	parseScopeList,
	resolveScope,
	TICKET_SECONDS,
} from './service'
import { eventStreamSink, webSocketSink } from './sinks'

const upgraded = new WeakMap<Request, LiveCaller>()
const sockets = new WeakMap<object, { connection: LiveConnection; caller: LiveCaller }>()

const MESSAGE_MAX_BYTES = 4096

/** Elysia types its raw socket with an older Bun interface; the object is Bun's own. */
const bunSocket = (raw: object) => raw as ServerWebSocket<unknown>

interface ClientMessage {
	type?: unknown
	scope?: unknown
	cursor?: unknown
}

async function onMessage(ws: ServerWebSocket<unknown>, message: unknown): Promise<void> {
	const held = sockets.get(ws)
	if (!held) return
	const { connection, caller } = held
	const text = typeof message === 'string' ? message : JSON.stringify(message)
	const m = (typeof message === 'object' && message !== null ? message : {}) as ClientMessage
	const fail = (error_message: string): void =>
		void ws.send(JSON.stringify({ type: 'error', scope: m.scope ?? null, error_message }))
	if (text.length > MESSAGE_MAX_BYTES) return fail('message too large')
	if (m.type === 'unsubscribe' && typeof m.scope === 'string') {
		connection.unsubscribe(m.scope)
		return void ws.send(JSON.stringify({ type: 'unsubscribed', scope: m.scope }))
	}
	if (m.type !== 'subscribe') return fail('type must be subscribe or unsubscribe')
	if (m.cursor !== undefined && !isStreamId(m.cursor)) return fail('cursor is malformed')
	if (connection.follows(String(m.scope))) return fail('already subscribed')
	if (connection.scopeCount >= LIVE_LIMITS.scopesPerConnection)
		return fail(`at most ${LIVE_LIMITS.scopesPerConnection} scopes per connection`)
	try {
		const sub = await resolveScope(caller.session, m.scope)
		await connection.subscribe(sub, m.cursor as string | undefined)
	} catch (error) {
		if (error instanceof AppError) return fail(error.message)
		throw error
	}
}

export const liveModule = new Elysia({ name: 'live' })
	.use(authPlugin)
	.post(
		'/live/ticket',
		async ({ session, request }) => ({
			success: true as const,
			ticket: await issueTicket(session, request.headers.get('authorization') ?? undefined),
			expires_in: TICKET_SECONDS,
		}),
		{
			auth: 'member',
			detail: { summary: 'A single-use 30-s ticket for GET /live (browsers)', tags: ['live'] },
		},
	)
	.get(
		'/live/events',
		async ({ session, query, request }) => {
			const caller = await callerOf(session, request.headers.get('authorization') ?? undefined)
			const names = parseScopeList(query.scopes)
			const cursors = parseCursors(request.headers.get('last-event-id') ?? query.cursors)
			const subs = await Promise.all(names.map((name) => resolveScope(session, name)))
			let connection: LiveConnection | undefined
			const { body, sink } = eventStreamSink(() => connection?.close(1000, 'client gone'))
			connection = new LiveConnection(sink, holderOf(caller))
			register(connection)
			await connection.open()
			const opened = connection
			await Promise.all(subs.map((sub) => opened.subscribe(sub, cursors.get(sub.scope.name))))
			return new Response(body, {
				headers: {
					'content-type': 'text/event-stream',
					'cache-control': 'no-cache',
					'x-accel-buffering': 'no',
				},
			})
		},
		{
			auth: 'member',
			query: t.Object({
				scopes: t.String({ maxLength: 2048 }),
				cursors: t.Optional(t.String({ maxLength: 2048 })),
			}),
			detail: { summary: 'Live updates as Server-Sent Events', tags: ['live'] },
		},
	)
	.ws('/live', {
		async beforeHandle({ request, query, server }) {
			// Elysia runs a ws route's beforeHandle twice (as a hook and before the upgrade);
			// a ticket is single-use, so the first answer stands.
			if (upgraded.has(request)) return
			const ticket = (query as Record<string, unknown>).ticket
			upgraded.set(
				request,
				await liveCaller(request.headers.get('authorization') ?? undefined, ticket),
			)
			if (server) useServer(server)
		},
		async open(ws) {
			const caller = upgraded.get(ws.data.request) as LiveCaller
			const connection = new LiveConnection(webSocketSink(bunSocket(ws.raw)), holderOf(caller))
			sockets.set(bunSocket(ws.raw), { connection, caller })
			register(connection)
			await connection.open()
		},
		message: (ws, message) => onMessage(bunSocket(ws.raw), message),
		close(ws) {
			sockets.get(ws.raw)?.connection.close(1000, 'closed')
		},
	})
