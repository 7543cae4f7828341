// The two transports behind the live engine's Sink: a Bun WebSocket (frames as text
// messages, Bun's topics for fan-out, its own buffered amount) and an SSE stream (each
// event's `id:` is the connection's whole cursor map, `scope@id,…`, so a browser's
// EventSource resumes every scope with its Last-Event-ID).
import type { ServerWebSocket } from 'bun'
import type { Sink } from '../../live'

export function webSocketSink(ws: ServerWebSocket<unknown>): Sink {
	return {
		transport: 'ws',
		send: (frame) => void ws.send(frame),
		buffered: () => ws.getBufferedAmount(),
		ping: () => void ws.ping(),
		close: (code, reason) => ws.close(code, reason),
		joinTopic: (key) => ws.subscribe(key),
		leaveTopic: (key) => {
			if (ws.readyState === 1) ws.unsubscribe(key)
		},
	}
}

const encoder = new TextEncoder()

/** An SSE body and its sink; `onCancel` runs when the client goes away. */
export function eventStreamSink(onCancel: () => void): { body: ReadableStream; sink: Sink } {
	let controller: ReadableStreamDefaultController<Uint8Array> | undefined
	let ended = false
	const cursors = new Map<string, string>()
	const write = (text: string) => {
		if (ended || !controller) return
		controller.enqueue(encoder.encode(text))
	}
	const body = new ReadableStream<Uint8Array>(
		{
			start(c) {
				controller = c
				// EventSource reconnects after a second when the stream ends.
				c.enqueue(encoder.encode('retry: 1000\n\n'))
			},
			cancel() {
				ended = true
				onCancel()
			},
		},
		{ highWaterMark: 0, size: (chunk) => chunk?.byteLength ?? 0 },
	)
	const sink: Sink = {
		transport: 'sse',
		send(frame, scope, id) {
			if (scope && id) cursors.set(scope, id)
			const idLine =
				scope && id ? `id: ${[...cursors].map(([s, c]) => `${s}@${c}`).join(',')}\n` : ''
			write(`${idLine}data: ${frame}\n\n`)
		},
		buffered: () => -(controller?.desiredSize ?? 0),
		ping: () => write(': ping\n\n'),
		close(code, reason) {
			write(`event: close\ndata: ${JSON.stringify({ code, reason })}\n\n`)
			if (ended) return
			ended = true
			controller?.close()
		},
	}
	return { body, sink }
}
