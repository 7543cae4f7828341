// The dashboard's one live connection (docs/live.md): a WebSocket to /live, opened
// with a single-use ticket (POST /live/ticket, with the session's token — refreshed by
// api.ts like any call), following the CMs' `community` scope. Pages listen with
// useLive: `queue` carries the review queue's absolute counts; `stats` says the
// overview's counts moved (it carries none: the page refetches them, throttled); `sync`
// is this file's own word for "you may have missed something, refetch over REST" —
// after a `reset` frame, and after a fresh subscription (a page that loaded before it
// may have missed what happened in between). After any close the socket comes back
// with the scope's cursor, so nothing between is lost.
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, callForEnvelope } from './api'

export interface LiveEvent {
	type: string
	at?: number
	data?: Record<string, unknown>
}

export type LiveStatus = 'off' | 'connecting' | 'reconnecting' | 'live'

const SCOPE = 'community'
const RETRY_MS = 1_000
const RETRY_MAX_MS = 30_000

const listeners = new Set<(event: LiveEvent) => void>()
const statusListeners = new Set<(status: LiveStatus) => void>()
let status: LiveStatus = 'off'
let socket: WebSocket | undefined
let cursor: string | undefined
let running = false
let retry: ReturnType<typeof setTimeout> | undefined
/** Live once since startLive: a connection lost now is "reconnecting". */
let wasLive = false
/** Attempts since the last subscription: the wait doubles with each, up to RETRY_MAX_MS. */
let failures = 0

function setStatus(next: LiveStatus): void {
	status = next
	for (const listener of statusListeners) listener(next)
}

function emit(event: LiveEvent): void {
	for (const listener of listeners) listener(event)
}

function scheduleReconnect(): void {
	if (!running) return
	setStatus(wasLive ? 'reconnecting' : 'connecting')
	clearTimeout(retry)
	const wait = Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** failures)
	failures += 1
	retry = setTimeout(connect, wait + Math.random() * RETRY_MS)
}

interface Frame {
	type: string
	scope?: string
	id?: string
	cursor?: string
	event?: LiveEvent
	error_message?: string
}

function onFrame(frame: Frame): void {
	if (frame.scope !== SCOPE) return
	if (frame.type === 'event' && frame.event) {
		cursor = frame.id
		emit(frame.event)
	} else if (frame.type === 'subscribed') {
		wasLive = true
		failures = 0
		setStatus('live')
		if (cursor) return // resumed: the events after the cursor were sent
		cursor = frame.cursor
		emit({ type: 'sync' })
	} else if (frame.type === 'reset') {
		cursor = frame.cursor
		emit({ type: 'sync' })
	} else if (frame.type === 'error') {
		// Not this caller's scope (a member's session): no live updates, no retries.
		running = false
		setStatus('off')
		socket?.close()
	}
}

async function connect(): Promise<void> {
	if (!running) return
	setStatus(wasLive ? 'reconnecting' : 'connecting')
	let ticket: string
	try {
		;({ ticket } = await callForEnvelope<{ ticket: string }>('POST', '/live/ticket'))
	} catch (error) {
		// A 401 that a refresh could not mend has signed the session out (api.ts).
		if (error instanceof ApiError && error.status === 401) return stopLive()
		return scheduleReconnect()
	}
	if (!running) return
	const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
	const ws = new WebSocket(`${scheme}://${location.host}/live?ticket=${encodeURIComponent(ticket)}`)
	socket = ws
	ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', scope: SCOPE, cursor }))
	ws.onmessage = (message) => {
		try {
			onFrame(JSON.parse(String(message.data)) as Frame)
		} catch {
			// not a frame of the protocol: ignored
		}
	}
	// 4001 (token expired or revoked) included: the next ticket asks with a refreshed token.
	ws.onclose = () => {
		if (socket !== ws) return
		socket = undefined
		scheduleReconnect()
	}
}

/** Opens the connection (once; a signed-in session). */
export function startLive(): void {
	if (running) return
	running = true
	void connect()
}

/** Closes it for good (sign-out): the next session starts without a cursor. */
export function stopLive(): void {
	running = false
	clearTimeout(retry)
	const ws = socket
	socket = undefined
	cursor = undefined
	wasLive = false
	failures = 0
	ws?.close()
	setStatus('off')
}

/** Calls `onEvent` (the latest one given) for every event of the `community` scope while mounted. */
export function useLive(onEvent: (event: LiveEvent) => void): void {
	const latest = useRef(onEvent)
	latest.current = onEvent
	useEffect(() => {
		const listener = (event: LiveEvent) => latest.current(event)
		listeners.add(listener)
		return () => {
			listeners.delete(listener)
		}
	}, [])
}

export function useLiveStatus(): LiveStatus {
	const [current, setCurrent] = useState(status)
	useEffect(() => {
		statusListeners.add(setCurrent)
		return () => {
			statusListeners.delete(setCurrent)
		}
	}, [])
	return current
}

/**
 * `action` at most once per `ms`: at once when it has not run for `ms`, else once at
 * the end of the interval (so the last of a burst is not lost). For refetches that
 * events ask for: a burst of events costs one request per interval.
 */
export function useThrottled(action: () => void, ms: number): () => void {
	const latest = useRef(action)
	latest.current = action
	const state = useRef<{ last: number; timer?: ReturnType<typeof setTimeout> }>({ last: 0 })
	useEffect(() => () => clearTimeout(state.current.timer), [])
	const run = useRef(() => {
		const s = state.current
		const wait = s.last + ms - Date.now()
		if (wait <= 0) {
			s.last = Date.now()
			latest.current()
			return
		}
		if (s.timer) return
		s.timer = setTimeout(() => {
			s.timer = undefined
			s.last = Date.now()
			latest.current()
		}, wait)
	})
	return run.current
}
