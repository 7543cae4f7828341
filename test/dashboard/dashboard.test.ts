// The dashboard in a real browser: a community manager signs in with the OTP flow and
// does each page's task; every result is checked through the API too.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { hasChromium, launchBrowser, screenshot } from '../support/browser'
import {
	newCommunity,
	newUser,
	ownerToken as ownerTokenOf,
	type TestCommunity,
	type TestUser,
} from '../support/community'
import { api } from '../support/http'
import { type Plaza, spawnPlaza } from '../support/process'
import { type Receiver, startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'

// A browser step can take seconds on a loaded 2-core machine.
setDefaultTimeout(30_000)

const CODE = '246810'
let community: TestCommunity
let server: Plaza
let browser: Browser
let page: Page
let base: string
let ownerToken: string
let receiver: Receiver

async function signIn(target: Page, code = CODE) {
	await target.goto(`${base}/dashboard`)
	await target.getByLabel('Country code').fill(community.ownerCountryCode)
	await target.getByLabel('Mobile number').fill(community.ownerMobile)
	await target.getByRole('button', { name: 'Send code' }).click()
	await target.getByLabel('Code', { exact: true }).fill(code)
	await target.getByRole('button', { name: 'Sign in' }).click()
}

const heading = (name: string) => page.getByRole('heading', { level: 1, name })

async function open(path: string, title: string) {
	await page.goto(`${base}/dashboard#/${path}`)
	await heading(title).waitFor()
}

/** The error text shown for one field (its aria-describedby error paragraph). */
const fieldError = (target: Page, name: string) => target.locator(`[data-error-for="${name}"]`)

beforeAll(async () => {
	if (!hasChromium())
		throw new Error('chromium is missing: apt-get install -y chromium (.ci/run does it)')
	community = await newCommunity('Dashboard test')
	server = await spawnPlaza('all', {
		OTP_TEST_NUMBERS: `${community.ownerCountryCode}-${community.ownerMobile}:${CODE}`,
	})
	base = `http://127.0.0.1:${server.port}`
	browser = await launchBrowser()
	page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
	receiver = startReceiver()
})

afterAll(async () => {
	await browser?.close()
	await server?.stop()
	receiver?.stop()
})

describe('sign-in', () => {
	test('a number that owns no project is told so at the mobile field, typed values kept', async () => {
		await page.goto(`${base}/dashboard`)
		await page.getByLabel('Country code').fill('1')
		await page.getByLabel('Mobile number').fill('5550001')
		await page.getByRole('button', { name: 'Send code' }).click()
		await expect(fieldError(page, 'mobile_no').textContent()).resolves.toContain(
			'No dashboard owner is registered',
		)
		expect(await page.getByLabel('Mobile number').inputValue()).toBe('5550001')
		await screenshot(page, 'sign-in-error')
	})

	test('a wrong code is shown at the code field; the right one opens the overview', async () => {
		await signIn(page, '000000')
		await expect(fieldError(page, 'otp').textContent()).resolves.toContain('Invalid OTP')
		await page.getByLabel('Code', { exact: true }).fill(CODE)
		await page.getByRole('button', { name: 'Sign in' }).click()
		await heading('Overview').waitFor()
		expect(await page.getByText('Dashboard test').first().isVisible()).toBe(true)
		const session = JSON.parse(
			(await page.evaluate(() => sessionStorage.getItem('plaza.dashboard.session'))) ?? '{}',
		)
		ownerToken = session.auth_token
		expect((await api('GET', '/community/member/role', { token: ownerToken })).body.data.role).toBe(
			'owner',
		)
		await screenshot(page, 'overview')
	})

	test('an expired access token is refreshed once and the page still loads', async () => {
		await page.evaluate(() => {
			const session = JSON.parse(sessionStorage.getItem('plaza.dashboard.session') ?? '{}')
			sessionStorage.setItem(
				'plaza.dashboard.session',
				JSON.stringify({ ...session, auth_token: 'expired.token.value' }),
			)
		})
		await open('topics', 'Topics')
		await page.getByLabel('New topic name').waitFor()
		const token = await page.evaluate(
			() => JSON.parse(sessionStorage.getItem('plaza.dashboard.session') ?? '{}').auth_token,
		)
		expect(token).not.toBe('expired.token.value')
		ownerToken = token
	})

	test('the navigation works with the keyboard alone', async () => {
		await open('overview', 'Overview')
		await page.locator('nav a[href="#/settings"]').focus()
		await page.keyboard.press('Enter')
		await heading('Settings').waitFor()
		expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Settings')
	})
})

describe('topics', () => {
	test('create L0 and L1, see them in the tree and through the API; a duplicate is refused at the name', async () => {
		await open('topics', 'Topics')
		await page.getByLabel('New topic name').fill('Travel')
		await page.getByRole('button', { name: 'Create topic' }).click()
		await page.locator('.tree .name', { hasText: 'Travel' }).waitFor()
		await page.getByLabel('New topic name').fill('Trains')
		await page.getByLabel('Place').selectOption({ label: 'under Travel (L1)' })
		await page.getByRole('button', { name: 'Create topic' }).click()
		await page.locator('.tree ul .name', { hasText: 'Trains' }).waitFor()
		const listed = await api('GET', '/feed/topic?page_size=100', { token: ownerToken })
		const byName = new Map(listed.body.data.topics.map((t: any) => [t.name, t]))
		const travel = byName.get('Travel') as any
		expect((byName.get('Trains') as any).parent_id).toBe(travel.id)

		await page.getByLabel('New topic name').fill('Travel')
		await page.getByLabel('Place').selectOption({ label: '— top level (L0) —' })
		await page.getByRole('button', { name: 'Create topic' }).click()
		await expect(fieldError(page, 'name').textContent()).resolves.toMatch(/exists|taken|already/i)
		expect(await page.getByLabel('New topic name').inputValue()).toBe('Travel')
		await screenshot(page, 'topics')
	})

	test('rename, disable, and delete a subtree after confirming', async () => {
		await page.getByRole('button', { name: 'Edit Trains' }).click()
		await page.getByLabel('Name', { exact: true }).fill('Rail')
		await page.getByLabel('Priority').fill('5')
		await page.getByRole('button', { name: 'Save' }).click()
		await page.locator('.tree .name', { hasText: 'Rail' }).waitFor()
		await page.getByRole('button', { name: 'Disable Travel' }).click()
		await page.getByRole('button', { name: 'Enable Travel' }).waitFor()
		let topics = (await api('GET', '/feed/topic?page_size=100', { token: ownerToken })).body.data
			.topics
		expect(topics.find((t: any) => t.name === 'Rail').priority).toBe(5)
		expect(topics.find((t: any) => t.name === 'Travel').is_enabled).toBe(false)

		await page.getByRole('button', { name: 'Delete Travel' }).click()
		await page.getByText('Delete Travel and its 1 subtopics?').waitFor()
		await page.getByRole('button', { name: 'Yes, delete' }).click()
		await page.getByText('No topics yet.').waitFor()
		topics = (await api('GET', '/feed/topic?page_size=100', { token: ownerToken })).body.data.topics
		expect(topics).toEqual([])
	})
})

describe('push credentials', () => {
	const dir = tmpdir()
	const { privateKey } = generateKeyPairSync('rsa', {
		modulusLength: 2048,
		privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
		publicKeyEncoding: { type: 'spki', format: 'pem' },
	})
	const file = (name: string, content: string) => {
		const path = join(dir, `${process.pid}-${name}`)
		writeFileSync(path, content)
		return path
	}

	test('a file that is not JSON is refused at the file field and nothing is stored', async () => {
		await open('push', 'Push credentials')
		await page.getByLabel('Project API key').fill(community.apiKey)
		await page.getByLabel('Service-account file (JSON)').setInputFiles(file('bad.json', 'not json'))
		await page.getByRole('button', { name: 'Upload' }).click()
		await expect(fieldError(page, 'file').textContent()).resolves.toContain('is not JSON')
		await page.getByText('No credentials stored yet.').waitFor()
	})

	test('a file missing a field shows the API message at the file field', async () => {
		const missing = file('missing.json', JSON.stringify({ type: 'service_account' }))
		await page.getByLabel('Service-account file (JSON)').setInputFiles(missing)
		await page.getByRole('button', { name: 'Upload' }).click()
		await expect(fieldError(page, 'file').textContent()).resolves.toContain(
			'push_service_account_file',
		)
	})

	test('uploading the service-account file stores it; the page shows ids, never the key', async () => {
		const account = {
			type: 'service_account',
			project_id: 'dash-push',
			private_key_id: 'kid-42',
			private_key: privateKey,
			client_email: 'push@dash-push.iam.gserviceaccount.com',
			client_id: '1',
			auth_uri: 'https://accounts.google.com/o/oauth2/auth',
			token_uri: 'https://oauth2.googleapis.com/token',
			auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
			client_x509_cert_url: 'https://www.googleapis.com/robot/v1/metadata/x509/push',
			universe_domain: 'googleapis.com',
		}
		await page
			.getByLabel('Service-account file (JSON)')
			.setInputFiles(file('account.json', JSON.stringify(account)))
		await page.getByRole('button', { name: 'Upload' }).click()
		await page.getByText('Credentials saved.').waitFor()
		await page.getByText('push@dash-push.iam.gserviceaccount.com').waitFor()
		expect(await page.content()).not.toContain('PRIVATE KEY')
		const stored = await api('GET', '/sdk/project', {
			token: ownerToken,
			apiKey: community.apiKey,
			headers: { 'x-platform-type': 'dashboard' },
		})
		expect(stored.body.data.push_service_account_file.private_key_id).toBe('kid-42')
		await screenshot(page, 'push-credentials')
	})
})

describe('settings', () => {
	test('user_connection and the default noti_state are saved through the API', async () => {
		await open('settings', 'Settings')
		const toggle = page.getByLabel(/user_connection/)
		expect(await toggle.isChecked()).toBe(false)
		const saved = page.waitForResponse(
			(response) =>
				response.url().endsWith('/community/settings') && response.request().method() === 'PUT',
		)
		await toggle.check()
		expect((await saved).status()).toBe(200)
		const settings = await api('GET', '/community/settings', { token: ownerToken })
		expect(
			settings.body.data.community_settings.find((s: any) => s.setting_type === 'user_connection')
				.enabled,
		).toBe(true)
		await page.getByLabel('Default notification state of new chatroom members').selectOption('3')
		await page.getByRole('button', { name: 'Save', exact: true }).click()
		await page.getByText('Saved.', { exact: true }).waitFor()
		const noti = await api('GET', '/community/settings/notification/conversation', {
			token: ownerToken,
		})
		expect(noti.body.data.community_notification_settings.noti_state).toBe(3)
		await screenshot(page, 'settings')
	})
})

describe('members', () => {
	test('find a member, make them CM, then remove it; the API agrees each time', async () => {
		const member = await newUser(community, { name: 'Zelda Moderator' })
		await open('members', 'Members')
		await page.getByLabel('Name or user id').fill('zelda')
		await page.getByRole('button', { name: 'Find' }).click()
		await page.getByText('1 found').waitFor()
		await page.getByRole('button', { name: 'Make Zelda Moderator a community manager' }).click()
		await page.getByRole('button', { name: "Remove Zelda Moderator's CM rights" }).waitFor()
		const role = () => api('GET', '/community/member/role', { token: member.token })
		// The change was made by the dashboard's server process; this one sees it within a
		// second (a token's passing checks are kept that long: docs/auth.md).
		const roleIs = (expected: string) =>
			waitFor(async () => (await role()).body.data.role === expected, {
				what: `role ${expected}`,
				timeoutMs: 1500,
			})
		await roleIs('cm')
		await page.getByRole('button', { name: "Remove Zelda Moderator's CM rights" }).click()
		await page.getByRole('button', { name: 'Make Zelda Moderator a community manager' }).waitFor()
		await roleIs('member')
	})

	test('the list opens with every member; remove and ban ask first; a banned id cannot start a session until the ban is lifted', async () => {
		const leaving = await newUser(community, { name: 'Yara Leaving' })
		const banned = await newUser(community, { name: 'Xeno Banned' })
		const state = (user: TestUser) =>
			api('GET', '/community/member/state', { token: user.token }).then((r) => r.status)
		// Revoked by the dashboard's server process: refused here within a second.
		const refused = (user: TestUser) =>
			waitFor(async () => (await state(user)) === 401, { what: 'revocation', timeoutMs: 1500 })
		// Still on the page from the test before (goto to the same URL would wait for
		// nothing): loaded again, it opens with the members created since.
		await page.reload()
		await heading('Members').waitFor()
		await page.getByRole('cell', { name: 'Yara Leaving', exact: true }).waitFor()
		await page.getByRole('cell', { name: 'Xeno Banned', exact: true }).waitFor()

		await page.getByRole('button', { name: 'Remove Yara Leaving from the community' }).click()
		// Nothing happens before the confirmation (positive control: the token still works).
		expect(await state(leaving)).toBe(200)
		await page.getByRole('button', { name: 'Confirm: remove Yara Leaving' }).click()
		await page.getByRole('row', { name: /Yara Leaving.*removed/ }).waitFor()
		await refused(leaving)

		await page.getByRole('button', { name: 'Ban Xeno Banned' }).click()
		await page.getByRole('button', { name: 'Keep Xeno Banned' }).click()
		expect(await state(banned)).toBe(200)
		await page.getByRole('button', { name: 'Ban Xeno Banned' }).click()
		await page.getByRole('button', { name: 'Confirm: ban Xeno Banned' }).click()
		await page.getByRole('button', { name: "Lift Xeno Banned's ban" }).waitFor()
		await refused(banned)
		const initiate = () =>
			api('POST', '/sdk/initiate', {
				apiKey: community.apiKey,
				body: { user_unique_id: banned.uniqueId },
			}).then((r) => r.status)
		expect(await initiate()).toBe(403)
		await screenshot(page, 'members')
		await page.getByRole('button', { name: "Lift Xeno Banned's ban" }).click()
		await page.getByRole('row', { name: /Xeno Banned.*removed/ }).waitFor()
		expect(await initiate()).toBe(200)
	})
})

describe('webhooks', () => {
	test('a private address is refused at the url field, the typed url kept', async () => {
		await open('webhooks', 'Webhooks')
		await page.getByLabel('Receiver URL').fill('http://10.0.0.1/hook')
		await page.getByRole('button', { name: 'Add webhook' }).click()
		await fieldError(page, 'url').waitFor()
		expect(await page.getByLabel('Receiver URL').inputValue()).toBe('http://10.0.0.1/hook')
	})

	test('create shows the secret once; a post is delivered and appears in the log', async () => {
		await page.getByLabel('Event').selectOption('post.created')
		await page.getByLabel('Receiver URL').fill(receiver.url)
		await page.getByRole('button', { name: 'Add webhook' }).click()
		const secret = await page.locator('.secret code').textContent()
		expect(secret).toStartWith('whsec_')
		const listed = await api('GET', '/webhook', { token: ownerToken })
		expect(listed.body.data.webhooks).toHaveLength(1)
		expect(JSON.stringify(listed.body)).not.toContain(secret)

		const author = await newUser(community)
		const post = await api('POST', '/feed/post', { token: author.token, body: { text: 'hello' } })
		expect(post.status).toBe(200)
		await waitFor(() => receiver.receipts.length > 0, { timeoutMs: 15_000 })
		await page.getByRole('button', { name: 'Deliveries and replay' }).click()
		for (let tries = 0; tries < 50; tries++) {
			if ((await page.locator('tbody tr').count()) > 0) break
			await page.getByRole('button', { name: 'Refresh log' }).click()
			await Bun.sleep(200)
		}
		expect(await page.locator('tbody tr').first().textContent()).toContain('delivered')
		await screenshot(page, 'webhooks')
	})

	test('replay a time range queues the event again', async () => {
		const hour = new Date(Date.now() - 3_600_000)
		const local = new Date(hour.getTime() - hour.getTimezoneOffset() * 60_000)
			.toISOString()
			.slice(0, 16)
		await page.getByLabel('Replay from').fill(local)
		await page.getByRole('button', { name: 'Replay' }).click()
		await page.getByText('1 events queued again').waitFor()
		await waitFor(() => receiver.receipts.length >= 2, { timeoutMs: 15_000 })
	})

	test('an inactive webhook shows why and can be reactivated', async () => {
		const [hook] = (await api('GET', '/webhook', { token: ownerToken })).body.data.webhooks
		await api('PATCH', `/webhook/${hook.id}`, { token: ownerToken, body: { is_active: false } })
		await open('overview', 'Overview')
		await open('webhooks', 'Webhooks')
		await page.getByRole('button', { name: 'Reactivate' }).click()
		await page.locator('.badge.ok', { hasText: 'active' }).waitFor()
		const after = (await api('GET', '/webhook', { token: ownerToken })).body.data.webhooks[0]
		expect(after.is_active).toBe(true)
	})
})

describe('chat_poll configuration', () => {
	test('a forbidden combination shows the API message at its field; a valid one is saved', async () => {
		await open('settings', 'Settings')
		await page.getByLabel('Poll type').selectOption('deferred')
		await page.getByLabel('Polls never expire (no_poll_expiry)').selectOption('true')
		await page.getByRole('button', { name: 'Save poll configuration' }).click()
		await expect(fieldError(page, 'no_poll_expiry').textContent()).resolves.toContain(
			'You cannot set no_poll_expiry to true for deferred polls.',
		)
		expect(await page.getByLabel('Poll type').inputValue()).toBe('deferred')
		await page.getByLabel('Polls never expire (no_poll_expiry)').selectOption('false')
		await page.getByLabel('Anonymous votes').selectOption('true')
		await page.getByRole('button', { name: 'Save poll configuration' }).click()
		await page.getByText('Poll configuration saved.').waitFor()
		const stored = await api('GET', '/community/configurations?configuration_types=chat_poll', {
			token: ownerToken,
		})
		const value = stored.body.data.community_configurations[0].value
		expect(value.poll_type).toBe('deferred')
		expect(value.is_anonymous).toBe(true)
		expect(value.no_poll_expiry).toBe(false)
	})
})

describe('chatrooms and cohorts', () => {
	let members: TestUser[]
	test('a cohort from pasted uuids; unknown uuids are named at the members field', async () => {
		members = [await newUser(community), await newUser(community)]
		await open('chatrooms', 'Chatrooms and cohorts')
		await page.getByLabel('Cohort name').fill('Mentors')
		const unknown = '00000000-0000-4000-8000-000000000000'
		await page.getByLabel('Members (uuids)').fill(`${members[0].uuid}\n${unknown}`)
		await page.getByRole('button', { name: 'Create cohort' }).click()
		await expect(fieldError(page, 'uuids').textContent()).resolves.toContain(unknown)
		await page.getByLabel('Members (uuids)').fill(`${members[0].uuid}, ${members[1].uuid}`)
		await page.getByRole('button', { name: 'Create cohort' }).click()
		await page.getByText('Cohort Mentors created with 2 members.').waitFor()
		const cohorts = await api('GET', '/community/cohort', { token: ownerToken })
		expect(cohorts.body.data.cohorts.map((c: any) => [c.name, c.total_members])).toEqual([
			['Mentors', 2],
		])
	})

	test('a private chatroom, the cohort attached read-only, its share link, then detached', async () => {
		await page.getByLabel('Chatroom title').fill('Mentor lounge')
		await page.getByRole('button', { name: 'Create chatroom' }).click()
		await page.getByText('Mentor lounge').waitFor()
		await page.getByLabel('Access', { exact: true }).selectOption('1')
		await page.getByLabel('Seat its members now').selectOption('true')
		await page.getByRole('button', { name: 'Attach' }).click()
		await page.getByRole('button', { name: 'Detach Mentors from Mentor lounge' }).waitFor()
		const rooms = await api('GET', '/chatroom', { token: ownerToken })
		const room = rooms.body.data.chatrooms.find((r: any) => r.title === 'Mentor lounge')
		expect(room.is_secret).toBe(true)
		const access = await api('GET', `/chatroom/cohort/access?chatroom_id=${room.id}`, {
			token: ownerToken,
		})
		expect(access.body.data.cohort_data.map((c: any) => c.cohort_access)).toEqual([1])
		const seen = await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: members[0].token })
		expect(seen.status).toBe(200)

		await page
			.getByRole('button', { name: 'Copy the share link of Mentor lounge for Mentors' })
			.click()
		const link = await page.locator('.card code', { hasText: '/collabcard/' }).textContent()
		expect(link).toContain(`/collabcard/${room.id}?cohort_id=`)
		await screenshot(page, 'chatrooms')

		await page.getByRole('button', { name: 'Detach Mentors from Mentor lounge' }).click()
		await page.getByText(/Mentors detached; \d+ participants left the room\./).waitFor()
		const after = await api('GET', `/chatroom/cohort/access?chatroom_id=${room.id}`, {
			token: ownerToken,
		})
		expect(after.body.data.cohort_data).toEqual([])
		expect(
			(await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: members[0].token })).status,
		).toBe(404)
	})
})

describe('import', () => {
	test('an NDJSON file is imported as a job; its counts and rejected lines are shown', async () => {
		await open('import', 'Import')
		await page.getByRole('button', { name: 'Import' }).click()
		await expect(fieldError(page, 'file').textContent()).resolves.toContain('Choose an NDJSON file')
		const lines = [
			{ type: 'user', user_unique_id: 'imp-ada', name: 'Ada Imported' },
			{
				type: 'post',
				external_id: 'imp-p1',
				user_unique_id: 'imp-ada',
				text: 'from the old forum',
				created_at: Date.now() - 86_400_000,
			},
			{ type: 'like', user_unique_id: 'imp-ada', post_external_id: 'imp-p1' },
			{ type: 'post', external_id: 'imp-p2', user_unique_id: 'nobody', text: 'x', created_at: 1 },
		]
		const path = join(tmpdir(), `${process.pid}-import.ndjson`)
		writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\nnot json\n`)
		await page.getByLabel('NDJSON file').setInputFiles(path)
		await page.getByRole('button', { name: 'Import' }).click()
		await page.getByText('succeeded').waitFor({ timeout: 25_000 })
		const records = await page.getByRole('table', { name: 'Records' }).textContent()
		expect(records).toContain('post1')
		const rejects = await page.getByRole('table', { name: 'Rejected lines' }).textContent()
		expect(rejects).toContain('4')
		expect(rejects).toContain('5')
		await screenshot(page, 'import')
		const author = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: 'imp-ada', user_name: 'Ada Imported' },
		})
		const posts = await api('GET', `/feed/user/${author.body.data.user.uuid}/post`, {
			token: author.body.data.access_token,
		})
		expect(posts.body.data.posts.map((post: any) => post.text)).toEqual(['from the old forum'])
	})
})

describe('custom activity', () => {
	test('unknown recipients are named at the recipients field; a valid one reaches the feed', async () => {
		const reader = await newUser(community, { name: 'Rita Reader' })
		const post = await api('POST', '/feed/post', { token: reader.token, body: { text: 'mine' } })
		await open('activity', 'Custom activity')
		await page.getByLabel('Text', { exact: true }).fill('Your post is featured')
		await page.getByLabel('Recipients').fill('no-such-member')
		await page.getByLabel('Its id').fill(post.body.data.post._id)
		await page.getByRole('button', { name: 'Send activity' }).click()
		await expect(fieldError(page, 'action_on').textContent()).resolves.toContain('no-such-member')
		await page.getByLabel('Recipients').fill(reader.uuid)
		await page.getByRole('button', { name: 'Send activity' }).click()
		await page.getByText('Sent to 1 members.').waitFor()
		await screenshot(page, 'activity')
		const feed = await api('GET', '/feed/user/activity', { token: reader.token })
		expect(feed.body.data.activities.map((a: any) => a.activity_text)).toContain(
			'Your post is featured',
		)
	})
})

describe('overview and layout', () => {
	test('counts come from the community; the page reads at 390 px', async () => {
		await open('overview', 'Overview')
		const counts = await page.locator('.counts').textContent()
		// The webhook test's post, the imported one and the custom activity's.
		expect(counts).toContain('Posts3')
		await page.getByText('Pushes per hour, last 24 h: 0 sent, 0 failed').waitFor()
		await page.setViewportSize({ width: 390, height: 844 })
		await page.reload()
		await heading('Overview').waitFor()
		const overflow = await page.evaluate(
			'document.documentElement.scrollWidth > document.documentElement.clientWidth',
		)
		expect(overflow).toBe(false)
		await screenshot(page, 'overview-390')
		await page.setViewportSize({ width: 1280, height: 900 })
	})

	test('sign out drops the session and shows the sign-in page', async () => {
		await page.getByRole('button', { name: 'Sign out' }).click()
		await page.getByRole('heading', { name: 'Sign in to the plaza dashboard' }).waitFor()
		expect(await page.evaluate(() => sessionStorage.getItem('plaza.dashboard.session'))).toBeNull()
		// Sign-out is a logout: the session's access token stops at once (issue 15).
		expect((await api('GET', '/community/member/role', { token: ownerToken })).status).toBe(401)
		ownerToken = await ownerTokenOf(community)
	})
})

describe('dashboard API without a session', () => {
	test('the overview needs a CM: 401 without a token, 403 for a member, 200 for the owner', async () => {
		expect((await api('GET', '/community/overview')).status).toBe(401)
		const member = await newUser(community)
		expect((await api('GET', '/community/overview', { token: member.token })).status).toBe(403)
		const owner = await api('GET', '/community/overview', { token: ownerToken })
		expect(owner.status).toBe(200)
		expect(owner.body.data.webhook_attempts_24h).toHaveLength(24)
		expect(owner.body.data.pushes_24h).toHaveLength(24)
		const delivered = owner.body.data.webhook_attempts_24h.reduce(
			(sum: number, hour: any) => sum + hour.delivered,
			0,
		)
		expect(delivered).toBeGreaterThanOrEqual(2)
	})

	test('member search needs a CM', async () => {
		const member = await newUser(community)
		expect((await api('GET', '/community/members', { token: member.token })).status).toBe(403)
		const found = await api('GET', '/community/members?search=zelda', { token: ownerToken })
		expect(found.body.data.members.map((m: any) => m.name)).toEqual(['Zelda Moderator'])
	})
})
