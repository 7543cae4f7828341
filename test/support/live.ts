// Live-update clients for tests: a real WebSocket (Bun's) and an SSE reader over a
// `fetch` stream, both against a listening plaza (`liveServer()`: the app on a free
// port, WebSockets included — app.handle alone cannot upgrade).
import { app } from '../../src/app'

let base: string | undefined

/** Starts (once per test file) the app listening on 127.0.0.1; its http base URL. */
export function liveServer(): string {
	if (!base) {
		app.listen({ port: 0, hostname: '127.0.0.1' })
		base = `http://127.0.0.1:${app.server?.port}`
	}
	return base
}

// biome-ignore lint/suspicious/noExplicitAny: frames are JSON from the server
export type Frame = any

/** Waits until `frames` holds one matching `match` (searching from `from`); its index. */
async function waitFrame(frames: Frame[], match: (f: Frame) => boolean, what: string, from = 0) {
	const deadline = Date.now() + 5000
	for (;;) {
		const i = frames.findIndex((f, n) => n >= from && match(f))
		if (i >= 0) return i
		if (Date.now() > deadline) throw new Error(`no frame: ${what}; got ${JSON.stringify(frames)}`)
		await Bun.sleep(10)
	}
}

export interface LiveSocket {
	frames: Frame[]
	send(message: object): void
	/** The first frame matching, after index `from`. */
	next(match: (f: Frame) => boolean, what: string, from?: number): Promise<Frame>
	closed: Promise<{ code: number; reason: string; at: number }>
	close(): void
}

/** A WebSocket to /live with the token in the Authorization header (or `?ticket=`); `base` another plaza. */
export function openSocket(
	auth: { token?: string; ticket?: string },
	base = liveServer(),
): Promise<LiveSocket> {
	const url = `${base.replace('http', 'ws')}/live${auth.ticket ? `?ticket=${auth.ticket}` : ''}`
	const ws = new WebSocket(url, {
		headers: auth.token ? { authorization: `Bearer ${auth.token}` } : {},
	} as unknown as string[])
	const frames: Frame[] = []
	ws.onmessage = (m) => frames.push(JSON.parse(String(m.data)))
	const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) => {
		ws.onclose = (e) => resolve({ code: e.code, reason: e.reason, at: Date.now() })
	})
	return new Promise((resolve, reject) => {
		ws.onopen = () =>
			resolve({
				frames,
				send: (message) => ws.send(JSON.stringify(message)),
				next: async (match, what, from = 0) => frames[await waitFrame(frames, match, what, from)],
				closed,
				close: () => ws.close(),
			})
		ws.onerror = () => reject(new Error('websocket refused'))
	})
}

/** Subscribes and waits for `subscribed` (or the error/reset answer); the frame. */
export async function subscribe(
	socket: LiveSocket,
	scope: string,
	cursor?: string,
): Promise<Frame> {
	const from = socket.frames.length
	socket.send({ type: 'subscribe', scope, ...(cursor ? { cursor } : {}) })
	return socket.next(
		(f) => f.scope === scope && (f.type === 'subscribed' || f.type === 'error'),
		`subscribed ${scope}`,
		from,
	)
}

export interface SseReader {
	status: number
	/** Each event: its `id:` line (the cursor map) and its data, parsed. */
	events: { id?: string; event?: string; data: Frame }[]
	comments: string[]
	next(match: (f: Frame) => boolean, what: string): Promise<Frame>
	stop(): void
}

/** GET /live/events, read as it streams. */
export async function openEvents(
	token: string,
	query: string,
	headers: Record<string, string> = {},
) {
	const controller = new AbortController()
	const reply = await fetch(`${liveServer()}/live/events?${query}`, {
		headers: { authorization: `Bearer ${token}`, ...headers },
		signal: controller.signal,
	})
	const reader: SseReader = {
		status: reply.status,
		events: [],
		comments: [],
		next: async (match, what) => {
			const datas = () => reader.events.map((e) => e.data)
			const deadline = Date.now() + 5000
			for (;;) {
				const found = datas().find(match)
				if (found) return found
				if (Date.now() > deadline)
					throw new Error(`no event: ${what}; got ${JSON.stringify(datas())}`)
				await Bun.sleep(10)
			}
		},
		stop: () => controller.abort(),
	}
	if (reply.status !== 200) {
		reader.events.push({ data: await reply.json() })
		return reader
	}
	void (async () => {
		const decoder = new TextDecoder()
		let buffer = ''
		try {
			for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) {
				buffer += decoder.decode(chunk, { stream: true })
				for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
					const block = buffer.slice(0, cut)
					buffer = buffer.slice(cut + 2)
					const lines = block.split('\n')
					const field = (name: string) =>
						lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2)
					for (const l of lines) if (l.startsWith(': ')) reader.comments.push(l.slice(2))
					const data = field('data')
					if (data)
						reader.events.push({ id: field('id'), event: field('event'), data: JSON.parse(data) })
				}
			}
		} catch {
			// aborted by stop()
		}
	})()
	return reader
}

/**
 * A WebSocket client on a raw TCP socket that can stop reading (`pause`), as a stalled
 * phone does: what the server sent is kept as latin1 text (frames unparsed).
 */
export async function stallingSocket(token: string) {
	const { default: net } = await import('node:net')
	const port = Number(new URL(liveServer()).port)
	const socket = net.connect(port, '127.0.0.1')
	await new Promise((resolve) => socket.once('connect', resolve))
	const state = { received: '' }
	socket.on('data', (d: Buffer) => {
		state.received += d.toString('latin1')
	})
	socket.write(
		`GET /live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
			`Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${btoa('0123456789abcdef')}\r\n` +
			`Authorization: Bearer ${token}\r\n\r\n`,
	)
	return {
		state,
		/** One masked text frame (client frames must be masked), under 126 bytes. */
		send(message: object) {
			const payload = Buffer.from(JSON.stringify(message))
			const mask = Buffer.from([1, 2, 3, 4])
			const masked = payload.map((b, i) => b ^ (mask[i % 4] as number))
			socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]))
		},
		pause: () => socket.pause(),
		resume: () => socket.resume(),
		end: () => socket.destroy(),
	}
}
