// The dashboard live, in a real browser: the owner's overview and moderation pages
// follow the `community` scope over one WebSocket (web/live.ts), so a report filed, a
// post written or a member joining through the HTTP API shows in their counts without
// a reload. The socket closed from the server's side comes back with its cursor, and a
// `reset` (the scope's history lost meanwhile) makes the page refetch over REST.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser, Page, WebSocketRoute } from 'playwright-core'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { hasChromium, launchBrowser, screenshot } from '../support/browser'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { newPost } from '../support/content'
import { api } from '../support/http'
import { type Plaza, spawnPlaza } from '../support/process'

// A browser step can take seconds on a loaded 2-core machine.
setDefaultTimeout(30_000)
const SEEN_MS = 10_000

const CODE = '246801'
let community: TestCommunity
let server: Plaza
let browser: Browser
let page: Page
let base: string
let author: TestUser
let reporter: TestUser
let cm: TestUser
const posts: string[] = []
/** The page's live sockets, routed through Playwright so the test can close one as the server would. */
const sockets: WebSocketRoute[] = []
const closers: (() => void)[] = []

/** A call to the running plaza process over HTTP, as any client makes it. */
async function http<T = unknown>(
	method: string,
	path: string,
	token: string | null,
	body?: unknown,
): Promise<T> {
	const headers: Record<string, string> = { 'content-type': 'application/json' }
	if (token) headers.authorization = `Bearer ${token}`
	if (path === '/sdk/initiate') headers['x-api-key'] = community.apiKey
	const response = await fetch(`${base}${path}`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	})
	const json = (await response.json()) as { data: T }
	expect(response.status).toBe(200)
	return json.data
}

async function fileReport(postId: string) {
	const tags = await http<{ report_tags: { id: number; name: string }[] }>(
		'GET',
		'/community/report/tag?entity_type=post',
		reporter.token,
	)
	const spam = tags.report_tags.find((t) => t.name === 'spam')
	await http('POST', '/community/report', reporter.token, {
		entity_type: 'post',
		entity_id: postId,
		tag_id: spam?.id,
	})
}

/** The overview's figure for `label` (its <dd>). */
const figure = (label: string) =>
	page
		.locator('dl.counts > div')
		.filter({ has: page.getByText(label, { exact: true }) })
		.locator('dd')

/** Waits (bounded) until the overview shows `value` for `label`. */
const figureIs = (label: string, value: number) =>
	figure(label)
		.filter({ hasText: new RegExp(`^${value}$`) })
		.waitFor({ timeout: SEEN_MS })

const numberOf = async (label: string) => Number(await figure(label).textContent())

/** Marks the document: a reload would lose the mark. */
const mark = () => page.evaluate('window.liveTestMark = 42')
const stillMarked = () => page.evaluate('window.liveTestMark')

beforeAll(async () => {
	if (!hasChromium())
		throw new Error('chromium is missing: apt-get install -y chromium (.ci/run does it)')
	community = await newCommunity('Live dashboard')
	author = await newUser(community, { name: 'Avery Author' })
	reporter = await newUser(community, { name: 'Remy Reporter' })
	cm = await newUser(community, { name: 'Casey Cm', role: 'cm' })
	posts.push(await newPost(author, { text: 'first post, reported from the overview' }))
	posts.push(await newPost(author, { text: 'second post, reported from the moderation page' }))
	server = await spawnPlaza('all', {
		OTP_TEST_NUMBERS: `${community.ownerCountryCode}-${community.ownerMobile}:${CODE}`,
	})
	base = `http://127.0.0.1:${server.port}`
	browser = await launchBrowser()
	page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
	await page.routeWebSocket(/\/live\?ticket=/, (ws) => {
		const upstream = ws.connectToServer()
		sockets.push(ws)
		closers.push(() => {
			upstream.close({ code: 4009, reason: 'closed by the test' })
			ws.close({ code: 4009, reason: 'closed by the test' })
		})
	})
	await page.goto(`${base}/dashboard`)
	await page.getByLabel('Country code').fill(community.ownerCountryCode)
	await page.getByLabel('Mobile number').fill(community.ownerMobile)
	await page.getByRole('button', { name: 'Send code' }).click()
	await page.getByLabel('Code', { exact: true }).fill(CODE)
	await page.getByRole('button', { name: 'Sign in' }).click()
	await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
})

afterAll(async () => {
	await browser?.close()
	await server?.stop()
})

describe('the dashboard live', () => {
	test('the overview counts a report, a post and a member as they happen, without a reload', async () => {
		await page.getByText('Live updates: on').waitFor({ timeout: SEEN_MS })
		await mark()
		await figureIs('Open reports', 0)
		const postsBefore = await numberOf('Posts')
		const membersBefore = await numberOf('Members')
		await fileReport(posts[0] as string)
		await figureIs('Open reports', 1)
		await http('POST', '/feed/post', author.token, { text: 'a post the overview counts live' })
		await figureIs('Posts', postsBefore + 1)
		await http('POST', '/sdk/initiate', null, {
			user_unique_id: `live-${Date.now()}`,
			user_name: 'Newcomer',
		})
		await figureIs('Members', membersBefore + 1)
		expect(await stillMarked()).toBe(42)
		expect(sockets.length).toBe(1) // one socket did all of it
		await screenshot(page, 'live-overview')
	})

	test('the moderation page shows a new report in its counts and its list', async () => {
		await page.goto(`${base}/dashboard#/moderation`)
		await page.getByText('1 open report · 0 posts awaiting approval').waitFor({ timeout: SEEN_MS })
		expect(await page.getByText('second post, reported from the moderation page').count()).toBe(0)
		await fileReport(posts[1] as string)
		await page.getByText('2 open reports · 0 posts awaiting approval').waitFor({ timeout: SEEN_MS })
		await page
			.getByText('second post, reported from the moderation page')
			.waitFor({ timeout: SEEN_MS })
		expect(await stillMarked()).toBe(42) // a hash navigation, never a reload
		expect(sockets.length).toBe(1)
		await screenshot(page, 'live-moderation')
	})

	test('a socket closed by the server comes back; a reset refetches over REST', async () => {
		await page.goto(`${base}/dashboard#/overview`)
		await figureIs('Open reports', 2)
		const topicsBefore = await numberOf('Topics')
		// A topic is not announced live: only a refetch can show it.
		await http('POST', '/feed/topic', cm.token, { names: ['Announced by a reset'] })
		await Bun.sleep(3_500) // longer than the overview's refetch interval
		expect(await numberOf('Topics')).toBe(topicsBefore)
		// The scope's history is lost (as when Redis restarts empty) while the socket is down.
		await redis.del(keys.liveStream(`c${community.communityId}`, 'community'))
		closers.at(-1)?.()
		await page.getByText('Live updates: reconnecting…').waitFor({ timeout: SEEN_MS })
		await page.getByText('Live updates: on').waitFor({ timeout: SEEN_MS })
		expect(sockets.length).toBe(2)
		// Resumed with its cursor, answered `reset`: the page read the overview again.
		await figureIs('Topics', topicsBefore + 1)
		// And it is live again.
		await http('PATCH', '/community/report', cm.token, {
			report_ids: await openReportIds(),
			action_taken: 'POST_APPROVED',
		})
		await figureIs('Open reports', 0)
		expect(await stillMarked()).toBe(42)
	})
})

describe('GET /community/overview/queue', () => {
	test('the review queue counts need a CM: 401 without a token, 403 for a member, the overview agrees', async () => {
		expect((await api('GET', '/community/overview/queue')).status).toBe(401)
		expect((await api('GET', '/community/overview/queue', { token: reporter.token })).status).toBe(
			403,
		)
		await fileReport(await newPost(author, { text: 'reported for the counts route' }))
		const counts = await api('GET', '/community/overview/queue', { token: cm.token })
		expect(counts.status).toBe(200)
		expect(counts.body.data).toEqual({ open_reports: 1, pending_posts: 0 })
		const overview = await api('GET', '/community/overview', { token: cm.token })
		expect(overview.body.data.queue).toEqual(counts.body.data)
	})
})

async function openReportIds(): Promise<number[]> {
	const queue = await http<{ reports_data: { reports: { id: number }[] }[] }>(
		'GET',
		'/community/report?is_closed=false&page_size=20',
		cm.token,
	)
	return queue.reports_data.flatMap((g: { reports: { id: number }[] }) =>
		g.reports.map((r) => r.id),
	)
}
