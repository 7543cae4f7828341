// Fetching a page for its preview, through the webhook SSRF guard (webhooks/ssrf.ts, the
// one guard): the URL's host is resolved and every address it resolves to checked
// before each connection — the first and every redirect — and the connection goes to
// the checked address (the name kept for Host and TLS), so DNS cannot swap in a private
// address between the check and the connect. At most MAX_REDIRECTS hops, PAGE_TIMEOUT_MS
// for all of it (DNS included), only `text/html`, and at most PAGE_MAX_BYTES read: the
// rest of a bigger page is never downloaded (Open Graph tags live in its head).
import { checkServerIdentity, type PeerCertificate } from 'node:tls'
import { config } from '../../config'
import { parseAllowList, parseWebhookUrl, pinnedUrl, resolveTarget } from '../../webhooks/ssrf'

export const PAGE_TIMEOUT_MS = 3_000
export const PAGE_MAX_BYTES = 512 * 1024
const MAX_REDIRECTS = 5

const allowList = parseAllowList(config.webhookAllowedCidrs)

/** The page cannot be previewed (the message says why); the URL itself was acceptable. */
export class PageError extends Error {}

export interface Page {
	/** where the last redirect led */
	url: URL
	html: string
}

export async function fetchPage(raw: string): Promise<Page> {
	const abort = new AbortController()
	const timer = setTimeout(() => abort.abort(), PAGE_TIMEOUT_MS)
	const timedOut = new Promise<never>((_, reject) =>
		abort.signal.addEventListener('abort', () =>
			reject(new PageError(`the page did not answer within ${PAGE_TIMEOUT_MS / 1000} s`)),
		),
	)
	timedOut.catch(() => {})
	try {
		return await Promise.race([follow(parseWebhookUrl(raw), abort.signal), timedOut])
	} finally {
		clearTimeout(timer)
		abort.abort()
	}
}

async function follow(start: URL, signal: AbortSignal): Promise<Page> {
	let url = start
	for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
		const target = await resolveTarget(url, allowList)
		const hostname = url.hostname
		const response = await fetch(pinnedUrl(target), {
			headers: {
				host: url.host,
				accept: 'text/html',
				'user-agent': 'plaza-link-preview/1 (like facebookexternalhit)',
			},
			redirect: 'manual',
			signal,
			tls: {
				serverName: hostname,
				checkServerIdentity: (_host: string, cert: PeerCertificate) =>
					checkServerIdentity(hostname, cert),
			},
		})
		const location = response.headers.get('location')
		if (response.status >= 300 && response.status < 400 && location) {
			void response.body?.cancel().catch(() => {})
			url = parseWebhookUrl(new URL(location, url).toString())
			continue
		}
		if (response.status !== 200) {
			void response.body?.cancel().catch(() => {})
			throw new PageError(`the page answered HTTP ${response.status}`)
		}
		const type = response.headers.get('content-type') ?? ''
		if (!/^\s*text\/html\b/i.test(type)) {
			void response.body?.cancel().catch(() => {})
			throw new PageError(`the page is not HTML (content-type ${type.slice(0, 100) || 'none'})`)
		}
		return { url, html: await readCapped(response) }
	}
	throw new PageError(`more than ${MAX_REDIRECTS} redirects`)
}

/** The first PAGE_MAX_BYTES of the body; the rest is cancelled, never read. */
async function readCapped(response: Response): Promise<string> {
	const reader = response.body?.getReader()
	if (!reader) return ''
	const chunks: Uint8Array[] = []
	let size = 0
	while (size < PAGE_MAX_BYTES) {
		const { done, value } = await reader.read()
		if (done) break
		const room = PAGE_MAX_BYTES - size
		const chunk = value.byteLength > room ? value.subarray(0, room) : value
		chunks.push(chunk)
		size += chunk.byteLength
	}
	void reader.cancel().catch(() => {})
	return new TextDecoder().decode(Buffer.concat(chunks))
}
