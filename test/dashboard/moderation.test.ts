// The dashboard's moderation page in a real browser: the owner signs in with the OTP
// flow, filters the queue, sees each reported entity in context (text, accused,
// reporters, tags, counts), closes two entities at once with one action, adds and
// removes a report tag and sets the report threshold; the API agrees each time.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { hasChromium, launchBrowser, screenshot } from '../support/browser'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { feed, ids, newPost } from '../support/content'
import { api } from '../support/http'
import { type Plaza, spawnPlaza } from '../support/process'

// A browser step can take seconds on a loaded 2-core machine.
setDefaultTimeout(30_000)

const CODE = '135790'
let community: TestCommunity
let server: Plaza
let browser: Browser
let page: Page
let base: string
let author: TestUser
let reporter: TestUser
let bystander: TestUser
const posts: Record<string, string> = {}

const heading = (name: string) => page.getByRole('heading', { level: 1, name })

async function reportPost(user: TestUser, postId: string, tagName: string, reason?: string) {
	const tags = await api('GET', '/community/report/tag?entity_type=post', { token: user.token })
	const tag = tags.body.data.report_tags.find((t: { name: string }) => t.name === tagName)
	const reply = await api('POST', '/community/report', {
		token: user.token,
		body: { entity_type: 'post', entity_id: postId, tag_id: tag.id, reason },
	})
	expect(reply.status).toBe(200)
}

beforeAll(async () => {
	if (!hasChromium())
		throw new Error('chromium is missing: apt-get install -y chromium (.ci/run does it)')
	community = await newCommunity('Moderation page')
	author = await newUser(community, { name: 'Arthur Author' })
	reporter = await newUser(community, { name: 'Rita Reporter' })
	bystander = await newUser(community)
	posts.spam = await newPost(author, { text: 'buy cheap pills now' })
	posts.rude = await newPost(author, { text: 'a rude remark' })
	posts.fine = await newPost(author, { text: 'a perfectly fine post' })
	await reportPost(reporter, posts.spam, 'spam')
	await reportPost(reporter, posts.rude, 'other', 'insults a member')
	await reportPost(reporter, posts.fine, 'hate')
	const comment = await api('POST', `/feed/post/${posts.fine}/comment`, {
		token: author.token,
		body: { text: 'a reported comment' },
	})
	const commentTags = await api('GET', '/community/report/tag?entity_type=comment', {
		token: reporter.token,
	})
	const filed = await api('POST', '/community/report', {
		token: reporter.token,
		body: {
			entity_type: 'comment',
			entity_id: comment.body.data.comment._id ?? comment.body.data.comment.id,
			tag_id: commentTags.body.data.report_tags[0].id,
		},
	})
	expect(filed.status).toBe(200)
	server = await spawnPlaza('all', {
		OTP_TEST_NUMBERS: `${community.ownerCountryCode}-${community.ownerMobile}:${CODE}`,
	})
	base = `http://127.0.0.1:${server.port}`
	browser = await launchBrowser()
	page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
	await page.goto(`${base}/dashboard`)
	await page.getByLabel('Country code').fill(community.ownerCountryCode)
	await page.getByLabel('Mobile number').fill(community.ownerMobile)
	await page.getByRole('button', { name: 'Send code' }).click()
	await page.getByLabel('Code', { exact: true }).fill(CODE)
	await page.getByRole('button', { name: 'Sign in' }).click()
	await heading('Overview').waitFor()
})

afterAll(async () => {
	await browser?.close()
	await server?.stop()
})

describe('the moderation page', () => {
	test('the queue shows each entity in context and filters by type', async () => {
		await page.goto(`${base}/dashboard#/moderation`)
		await heading('Moderation').waitFor()
		await page.getByText('buy cheap pills now').waitFor()
		const rude = page.locator('tr', { hasText: 'a rude remark' })
		await expect(rude.textContent()).resolves.toContain('Arthur Author')
		await expect(rude.textContent()).resolves.toContain('Rita Reporter')
		await expect(rude.textContent()).resolves.toContain('insults a member')
		expect(await page.getByText('a reported comment').isVisible()).toBe(true)
		await page.getByLabel('Entity type').selectOption('comment')
		await page.getByText('buy cheap pills now').waitFor({ state: 'detached' })
		expect(await page.getByText('a reported comment').isVisible()).toBe(true)
		await page.getByLabel('Entity type').selectOption('post')
		await page.getByText('buy cheap pills now').waitFor()
		expect(await page.getByText('a reported comment').count()).toBe(0)
		await screenshot(page, 'moderation-queue')
	})

	test('two entities closed at once with one action: both posts deleted, the third kept', async () => {
		await page.getByRole('checkbox', { name: 'Select post: buy cheap pills now' }).check()
		await page.getByRole('checkbox', { name: 'Select post: a rude remark' }).check()
		await page.getByLabel('Action').selectOption('POST_REJECTED')
		await page.getByRole('button', { name: 'Close selected' }).click()
		await page.getByText('buy cheap pills now').waitFor({ state: 'detached' })
		expect(await page.getByText('a perfectly fine post').isVisible()).toBe(true)
		const seen = ids((await feed(bystander)).posts)
		expect(seen).not.toContain(posts.spam)
		expect(seen).not.toContain(posts.rude)
		expect(seen).toContain(posts.fine) // positive control: the one left open stays
		await page.getByLabel('State').selectOption('closed')
		await page.getByText('buy cheap pills now').waitFor()
		await screenshot(page, 'moderation-closed')
	})

	test('a wrong action for the entity is shown, nothing closed', async () => {
		await page.getByLabel('State').selectOption('open')
		await page.getByRole('checkbox', { name: 'Select post: a perfectly fine post' }).check()
		await page.getByLabel('Action').selectOption('COMMENT_APPROVED')
		await page.getByRole('button', { name: 'Close selected' }).click()
		await page.locator('[data-error-for="action_taken"]').waitFor()
		expect(await page.getByText('a perfectly fine post').isVisible()).toBe(true)
	})

	test('report tags are added and removed; the threshold is saved', async () => {
		await page.getByLabel('New tag name').fill('scam')
		await page.getByRole('button', { name: 'Add tag' }).click()
		await page.getByRole('button', { name: 'Remove tag scam' }).waitFor()
		const list = async () =>
			(
				await api('GET', '/community/report/tag?entity_type=post', { token: reporter.token })
			).body.data.report_tags.map((t: { name: string }) => t.name)
		expect(await list()).toContain('scam')
		await page.getByRole('button', { name: 'Remove tag scam' }).click()
		await page.getByRole('button', { name: 'Remove tag scam' }).waitFor({ state: 'detached' })
		expect(await list()).not.toContain('scam')
		expect(await list()).toContain('spam')
		await page.getByLabel('Reporters before hiding').fill('5')
		await page.getByRole('button', { name: 'Save threshold' }).click()
		await page.getByText('hidden for everyone after 5 reporters').waitFor()
		const settings = await api('GET', '/community/settings/moderation', { token: reporter.token })
		expect(settings.body.data.auto_hide_after_reports).toBe(5)
		await screenshot(page, 'moderation-tags')
	})

	test('post approval: a pending post is listed and approved from the queue', async () => {
		await page.getByLabel('Posts wait for approval').selectOption('all')
		await page.getByRole('button', { name: 'Save post approval' }).click()
		await page.getByText('Saved: post moderation all').waitFor()
		const waiting = await newPost(author, { text: 'a post awaiting approval' })
		expect(ids((await feed(bystander)).posts)).not.toContain(waiting)
		await page.getByLabel('Entity type').selectOption('pending_post')
		await page.getByText('a post awaiting approval').waitFor()
		await page
			.getByRole('checkbox', { name: 'Select pending_post: a post awaiting approval' })
			.check()
		await page.getByLabel('Action').selectOption('PENDING_POST_APPROVED')
		await page.getByRole('button', { name: 'Close selected' }).click()
		await page.getByText('a post awaiting approval').waitFor({ state: 'detached' })
		expect(ids((await feed(bystander)).posts)).toContain(waiting)
		const settings = await api('GET', '/community/settings/moderation', { token: reporter.token })
		expect(settings.body.data.post_moderation).toBe('all')
		await screenshot(page, 'moderation-pending')
	})
})
