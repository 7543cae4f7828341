// Helpers for webhook tests: a real local receiver whose answer each test scripts,
// and a registered webhook for a fresh community.
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

export interface Receipt {
	path: string
	id: string
	attempt: number
	at: number
	headers: Headers
	body: string
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
	waitFor: (predicate: () => boolean, timeoutMs?: number) => Promise<void>
}

export function startReceiver(answer: Answer = () => new Response('ok')): Receiver {
	const receipts: Receipt[] = []
	const receiver: Receiver = {
		url: '',
		port: 0,
		receipts,
		answer,
		stop: () => server.stop(true),
		of: (id) => receipts.filter((r) => r.id === id),
		waitFor: (predicate, timeoutMs = 10_000) => waitFor(predicate, timeoutMs),
	}
	const server = Bun.serve({
		port: 0,
		hostname: '127.0.0.1',
		async fetch(request) {
			const body = await request.text()
			const receipt: Receipt = {
				path: new URL(request.url).pathname,
				id: request.headers.get('webhook-id') ?? '',
				attempt: Number(request.headers.get('webhook-attempt')),
				at: Date.now(),
				headers: request.headers,
				body,
				json: JSON.parse(body),
			}
			receipts.push(receipt)
			return receiver.answer(receipt, receipts.length)
		},
	})
	receiver.port = server.port as number
	receiver.url = `http://127.0.0.1:${server.port}/hook`
	return receiver
}

export async function waitFor(
	predicate: () => boolean | Promise<boolean>,
	timeoutMs = 10_000,
): Promise<void> {
	const until = Date.now() + timeoutMs
	while (!(await predicate())) {
		if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`)
		await Bun.sleep(20)
	}
}

export const sleep = (ms: number) => Bun.sleep(ms)

export interface Setup {
	community: TestCommunity
	cm: TestUser
}

export async function setup(name: string): Promise<Setup> {
	const community = await newCommunity(name)
	const cm = await newUser(community, { role: 'cm' })
	return { community, cm }
}

export async function register(s: Setup, url: string, webhookType = 'profile.created') {
	const reply = await api('POST', '/webhook', {
		token: s.cm.token,
		body: { webhook_type: webhookType, url, is_active: true },
	})
	if (reply.status !== 200)
		throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`)
	return reply.body.data.webhook as { id: string; secret: string; url: string; is_active: boolean }
}

/** Triggers profile.created through the API; returns the new user's uuid. */
export async function newProfile(s: Setup, uniqueId = `p-${crypto.randomUUID()}`): Promise<string> {
	const reply = await api('POST', '/sdk/initiate', {
		apiKey: s.community.apiKey,
		body: { user_unique_id: uniqueId, user_name: uniqueId },
	})
	if (reply.status !== 200) throw new Error(`initiate failed: ${JSON.stringify(reply.body)}`)
	return reply.body.data.user.uuid
}

export interface Proc {
	proc: ReturnType<typeof Bun.spawn>
	kill: (signal?: NodeJS.Signals) => Promise<void>
}

const root = `${import.meta.dir}/../..`

/** `bun src/index.ts` as a separate process (ROLE=worker unless env says otherwise); resolves once started. */
export async function spawnPlaza(env: Record<string, string> = {}): Promise<Proc> {
	const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
		cwd: root,
		env: { ...process.env, ROLE: 'worker', LOG_LEVEL: 'info', ...env } as Record<string, string>,
		stdout: 'pipe',
		stderr: 'inherit',
	})
	const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
	const decoder = new TextDecoder()
	let seen = ''
	const ready = (async () => {
		for (;;) {
			const { value, done } = await reader.read()
			if (done) throw new Error(`plaza exited before starting: ${seen.slice(-2000)}`)
			seen += decoder.decode(value)
			if (seen.includes('worker started') || seen.includes('api listening')) break
		}
		// Keep draining so the child never blocks on a full pipe.
		void (async () => {
			while (!(await reader.read().catch(() => ({ done: true }))).done) {}
		})()
	})()
	await Promise.race([
		ready,
		Bun.sleep(15_000).then(() => Promise.reject(new Error('plaza did not start in 15 s'))),
	])
	return {
		proc,
		kill: async (signal: NodeJS.Signals = 'SIGTERM') => {
			proc.kill(signal)
			await proc.exited
		},
	}
}

/** A free TCP port (bound and released at once). */
export function freePort(): number {
	const probe = Bun.serve({ port: 0, fetch: () => new Response() })
	const port = probe.port as number
	probe.stop(true)
	return port
}
