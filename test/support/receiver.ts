// A real local HTTP peer (webhook receiver, SMS gateway): records every request it gets
// and answers as the test scripts it. Tests check what plaza sent, never a mock of plaza.

export interface Receipt {
	path: string
	/** `webhook-id` header (the event id), '' when absent */
	id: string
	/** `webhook-attempt` header, NaN when absent */
	attempt: number
	at: number
	headers: Headers
	body: string
	/** the body parsed as JSON, undefined when it is not JSON */
	json: any
}

export type Answer = (receipt: Receipt, count: number) => Response | Promise<Response>

export interface Receiver {
	url: string
	port: number
	receipts: Receipt[]
	answer: Answer
	stop: () => void
	/** receipts of one event id */
	of: (id: string) => Receipt[]
	/** receipts at one path */
	at: (path: string) => Receipt[]
	/** the URL of one path on this receiver */
	urlOf: (path: string) => string
}

function parseJson(body: string): unknown {
	try {
		return JSON.parse(body)
	} catch {
		return undefined
	}
}

export function startReceiver(answer: Answer = () => new Response('ok')): Receiver {
	const receipts: Receipt[] = []
	const server = Bun.serve({
		port: 0,
		hostname: '127.0.0.1',
		async fetch(request) {
			const body = await request.text()
			const receipt: Receipt = {
				path: new URL(request.url).pathname,
				id: request.headers.get('webhook-id') ?? '',
				attempt: Number(request.headers.get('webhook-attempt') ?? Number.NaN),
				at: Date.now(),
				headers: request.headers,
				body,
				json: parseJson(body),
			}
			receipts.push(receipt)
			return receiver.answer(receipt, receipts.length)
		},
	})
	const base = `http://127.0.0.1:${server.port}`
	const receiver: Receiver = {
		url: `${base}/hook`,
		port: server.port as number,
		receipts,
		answer,
		stop: () => server.stop(true),
		of: (id) => receipts.filter((r) => r.id === id),
		at: (path) => receipts.filter((r) => r.path === path),
		urlOf: (path) => `${base}${path}`,
	}
	return receiver
}

/** A free TCP port (bound and released at once). */
export function freePort(): number {
	const probe = Bun.serve({ port: 0, fetch: () => new Response() })
	const port = probe.port as number
	probe.stop(true)
	return port
}
