// Link previews (GET /helper/url) against a local page server, never the internet:
// Open Graph tags, every SSRF notation the webhook guard refuses (directly and as a
// redirect target), the 3 s timeout, the 512 KB cap, the text/html rule, the day-long
// cache, and — in a process whose allow-list is empty — loopback refused at connect time.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'
import { spawnPlaza } from '../support/process'
import { refusedNotations } from '../support/ssrf'

const hits = new Map<string, number>()
const page = (head: string, body = '') =>
	`<!doctype html><html><head>${head}</head><body>${body}</body></html>`
const og = (title: string) =>
	`<title>Fallback &amp; title</title><meta property="og:title" content="${title}">` +
	'<meta property="og:description" content="A &quot;described&quot; page">' +
	'<meta property="og:image" content="/img/cover.png"><meta property="og:url" content="https://example.com/canonical">'

const server: ReturnType<typeof Bun.serve> = Bun.serve({
	port: 0,
	hostname: '127.0.0.1',
	idleTimeout: 30,
	async fetch(request): Promise<Response> {
		const url = new URL(request.url)
		hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1)
		const html = (text: string) =>
			new Response(text, { headers: { 'content-type': 'text/html; charset=utf-8' } })
		switch (url.pathname) {
			case '/og':
				return html(page(og('Plaza page'), 'hello'))
			case '/query':
				return html(page(`<meta property="og:title" content="b=${url.searchParams.get('b')}">`))
			case '/plain-title':
				return html(page('<title>Only a title</title><meta name="description" content="desc">'))
			case '/hop':
				return Response.redirect(`http://127.0.0.1:${server.port}/og`, 302)
			case '/redirect':
				return new Response(null, {
					status: 302,
					headers: { location: url.searchParams.get('to') ?? '/' },
				})
			case '/slow':
				await Bun.sleep(5_000)
				return html(page(og('too late')))
			case '/json':
				return Response.json({ title: 'not html' })
			case '/missing':
				return new Response('no', { status: 404, headers: { 'content-type': 'text/html' } })
			case '/late-tags':
				// the tags come after 600 KB: past the cap, never read
				return html(page('<title>early</title>', 'x'.repeat(600 * 1024) + og('beyond the cap')))
			case '/endless': {
				// an endless page: only the cap ends the read (a timeout would be a 422)
				const chunk = new TextEncoder().encode('y'.repeat(64 * 1024))
				let first = true
				return new Response(
					new ReadableStream({
						pull(controller) {
							if (first) {
								first = false
								controller.enqueue(
									new TextEncoder().encode(`<html><head>${og('Endless')}</head><body>`),
								)
							} else controller.enqueue(chunk)
						},
					}),
					{ headers: { 'content-type': 'text/html' } },
				)
			}
			case '/changing':
				return html(page(`<meta property="og:title" content="version ${hits.get('/changing')}">`))
			default:
				return new Response('not found', { status: 404 })
		}
	},
})
const base = `http://127.0.0.1:${server.port}`

// Page fetches are limited per member (60 a minute): each test previews as its own member.
let community: TestCommunity
let member: TestUser
let other: TestUser
const preview = (url: string, user = member) =>
	api('GET', `/helper/url?url=${encodeURIComponent(url)}`, { token: user.token })

beforeAll(async () => {
	community = await newCommunity('previews')
	other = await newUser(await newCommunity('previews-2'))
})
beforeEach(async () => {
	member = await newUser(community)
})
afterAll(() => server.stop(true))

describe('GET /helper/url', () => {
	test('answers the page’s Open Graph tags in the SDKs’ og_tags shape', async () => {
		const reply = await preview(`${base}/og`)
		expect(reply.status).toBe(200)
		expect(reply.body.data.og_tags).toEqual({
			title: 'Plaza page',
			description: 'A "described" page',
			image: `${base}/img/cover.png`,
			url: 'https://example.com/canonical',
		})
		// Without og tags: the <title> and the description meta, the page's own URL.
		const plain = await preview(`${base}/plain-title`)
		expect(plain.body.data.og_tags).toEqual({
			title: 'Only a title',
			description: 'desc',
			image: '',
			url: `${base}/plain-title`,
		})
	})

	test('follows a redirect to an allowed page; the URL may come unencoded, as the SDKs send it', async () => {
		expect((await preview(`${base}/hop`)).body.data.og_tags.title).toBe('Plaza page')
		const raw = await api('GET', `/helper/url?url=${base}/query?a=1&b=2`, { token: member.token })
		expect(raw.status).toBe(200)
		expect(raw.body.data.og_tags.title).toBe('b=2')
	})

	test('0 of the SSRF notations the webhook guard refuses get through, directly or as a redirect target', async () => {
		const through: string[] = []
		const second = await newUser(community)
		for (const target of refusedNotations) {
			const direct = await preview(target, second)
			if (direct.status !== 400 || !/private or reserved/.test(direct.body.error_message))
				through.push(`direct ${target}: ${direct.status} ${direct.body.error_message}`)
			const redirected = await preview(`${base}/redirect?to=${encodeURIComponent(target)}`)
			if (redirected.status !== 400 || !/private or reserved/.test(redirected.body.error_message))
				through.push(`redirect ${target}: ${redirected.status} ${redirected.body.error_message}`)
		}
		expect(through).toEqual([])
		expect(refusedNotations.length).toBeGreaterThan(15)
		// Positive control: the same redirect route to an allowed page is followed.
		const allowed = await preview(`${base}/redirect?to=${encodeURIComponent(`${base}/og`)}`)
		expect(allowed.status).toBe(200)
		expect(allowed.body.data.og_tags.title).toBe('Plaza page')
	})

	test('bad URLs are 400 naming url', async () => {
		for (const url of [
			'',
			'not a url',
			'ftp://example.com/x',
			'http://user:pw@127.0.0.1/x',
			'file:///etc/passwd',
		]) {
			const reply = await preview(url)
			expect(reply.status, url).toBe(400)
			expect(reply.body.error_message, url).toMatch(/url/)
		}
		expect((await api('GET', '/helper/url', { token: member.token })).body.error_message).toBe(
			'url is missing',
		)
		expect((await api('GET', `/helper/url?url=${base}/og`)).status).toBe(401)
	})

	test('a page slower than 3 s is a 422, not a hang', async () => {
		const started = performance.now()
		const reply = await preview(`${base}/slow`)
		expect(reply.status).toBe(422)
		expect(reply.body.error_message).toContain('did not answer within 3 s')
		expect(performance.now() - started).toBeGreaterThanOrEqual(2_900)
	}, 15_000)

	test('only text/html, only HTTP 200', async () => {
		const json = await preview(`${base}/json`)
		expect(json.status).toBe(422)
		expect(json.body.error_message).toContain('not HTML (content-type application/json')
		const missing = await preview(`${base}/missing`)
		expect(missing.status).toBe(422)
		expect(missing.body.error_message).toContain('HTTP 404')
	})

	test('at most 512 KB of a page is read: tags past it are not seen, an endless page still answers', async () => {
		const late = await preview(`${base}/late-tags`)
		expect(late.status).toBe(200)
		expect(late.body.data.og_tags.title).toBe('early')
		const endless = await preview(`${base}/endless`)
		expect(endless.status).toBe(200)
		expect(endless.body.data.og_tags.title).toBe('Endless')
	})

	test('a preview is cached a day per community: the page is fetched once', async () => {
		const url = `${base}/changing`
		const first = await preview(url)
		const second = await preview(url)
		expect(first.body.data.og_tags.title).toBe('version 1')
		expect(second.body.data.og_tags.title).toBe('version 1')
		expect(hits.get('/changing')).toBe(1)
		// Another community fetches its own copy (positive control: the page does change).
		expect((await preview(url, other)).body.data.og_tags.title).toBe('version 2')
		expect(hits.get('/changing')).toBe(2)
	})

	test('with an empty allow-list, loopback is refused in every notation, also behind a name', async () => {
		const strict = await spawnPlaza('api', { WEBHOOK_ALLOWED_CIDRS: '' })
		try {
			const through: string[] = []
			// Never previewed before (a cached preview is served without a fetch).
			const path = '/og?strict=1'
			for (const url of [
				`${base}${path}`,
				`http://localhost:${server.port}${path}`,
				`http://[::1]:${server.port}${path}`,
				`http://[::ffff:127.0.0.1]:${server.port}${path}`,
				`http://2130706433:${server.port}${path}`,
				`http://0x7f.0.0.1:${server.port}${path}`,
				`http://0177.0.0.1:${server.port}${path}`,
				`http://127.1:${server.port}${path}`,
			]) {
				const reply = await fetch(
					`http://127.0.0.1:${strict.port}/helper/url?url=${encodeURIComponent(url)}`,
					{ headers: { authorization: `Bearer ${member.token}` } },
				)
				const body = (await reply.json()) as { error_message: string }
				if (reply.status !== 400 || !/private or reserved/.test(body.error_message))
					through.push(`${url}: ${reply.status} ${body.error_message}`)
			}
			expect(through).toEqual([])
			// Positive control: this process previews a public page… none here, so the
			// suite's own process previews the same URL (loopback allowed there).
			expect((await preview(`${base}${path}`)).body.data.og_tags.title).toBe('Plaza page')
		} finally {
			await strict.stop()
		}
	}, 30_000)
})
