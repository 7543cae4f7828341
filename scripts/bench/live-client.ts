// A bench client of /live: one WebSocket (token in the Authorization header) following
// its scopes, keeping a cursor per scope, and resuming from it on connect() after a
// close — the logic of docs/live.md's client. Event frames are read without JSON.parse
// (scope, id and `at` cut out of the text, whose field order the server fixes), so one
// bun process can take the deliveries of tens of thousands of sockets.

export interface EventFrame {
	scope: string
	id: string
	/** the writer's publish time (ms) */
	at: number
	text: string
}

const EVENT_HEAD = '{"type":"event","scope":"'

/** The scope, id and `at` of an event frame's text, or null for another frame. */
export function eventOf(text: string): EventFrame | null {
	if (!text.startsWith(EVENT_HEAD)) return null
	const scopeEnd = text.indexOf('"', EVENT_HEAD.length)
	const idStart = text.indexOf('"id":"', scopeEnd) + 6
	const idEnd = text.indexOf('"', idStart)
	const atStart = text.indexOf('"at":', idEnd) + 5
	return {
		scope: text.slice(EVENT_HEAD.length, scopeEnd),
		id: text.slice(idStart, idEnd),
		at: Number.parseInt(text.slice(atStart, atStart + 16), 10),
		text,
	}
}

export interface ClientHooks {
	onEvent?(client: LiveClient, event: EventFrame): void
	/** A close this process did not ask for (code 1006 when the api process died). */
	onDrop?(client: LiveClient, code: number): void
	/** Any other frame, parsed (reset, error). */
	onOther?(client: LiveClient, frame: { type: string; scope?: string }): void
}

export class LiveClient {
	ws: WebSocket | undefined
	readonly cursors = new Map<string, string>()
	private closing = false

	constructor(
		readonly n: number,
		readonly token: string,
		readonly scopes: string[],
		private readonly hooks: ClientHooks = {},
	) {}

	/** Opens the socket on `base` (ws://host:port) and resolves once every scope answered `subscribed`. */
	connect(base: string, timeoutMs = 60_000): Promise<void> {
		this.closing = false
		const ws = new WebSocket(`${base}/live`, {
			headers: { authorization: `Bearer ${this.token}` },
		} as unknown as string[])
		this.ws = ws
		let waiting = this.scopes.length
		return new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error(`client ${this.n}: no subscribed`)),
				timeoutMs,
			)
			const fail = (why: string) => {
				clearTimeout(timer)
				reject(new Error(`client ${this.n}: ${why}`))
			}
			ws.onopen = () => {
				for (const scope of this.scopes) {
					const cursor = this.cursors.get(scope)
					ws.send(JSON.stringify({ type: 'subscribe', scope, ...(cursor ? { cursor } : {}) }))
				}
			}
			ws.onerror = () => fail('socket refused')
			ws.onclose = (e) => {
				if (waiting > 0) fail(`closed ${e.code} before subscribed`)
				else if (!this.closing) this.hooks.onDrop?.(this, e.code)
			}
			ws.onmessage = (m) => {
				const text = String(m.data)
				const event = eventOf(text)
				if (event) {
					this.cursors.set(event.scope, event.id)
					this.hooks.onEvent?.(this, event)
					return
				}
				const frame = JSON.parse(text) as { type: string; scope?: string; cursor?: string }
				if (frame.type === 'subscribed' && frame.scope) {
					if (!this.cursors.has(frame.scope)) this.cursors.set(frame.scope, frame.cursor as string)
					if (--waiting === 0) {
						clearTimeout(timer)
						resolve()
					}
					return
				}
				if (frame.type === 'reset' && frame.scope && frame.cursor)
					this.cursors.set(frame.scope, frame.cursor)
				if (frame.type === 'error' && waiting > 0) fail(`error frame ${text}`)
				this.hooks.onOther?.(this, frame)
			}
		})
	}

	close() {
		this.closing = true
		this.ws?.close()
	}
}

/** Connects `clients` in batches of `batch`, each to `baseOf(client)`; logs progress. */
export async function connectAll(
	clients: LiveClient[],
	baseOf: (c: LiveClient) => string,
	log: (msg: string) => void,
	batch = 250,
) {
	const started = performance.now()
	for (let i = 0; i < clients.length; i += batch) {
		await Promise.all(clients.slice(i, i + batch).map((c) => c.connect(baseOf(c))))
		if ((i / batch) % 20 === 19) log(`${i + batch} clients connected`)
	}
	log(
		`${clients.length} clients connected in ${((performance.now() - started) / 1000).toFixed(1)} s`,
	)
}
