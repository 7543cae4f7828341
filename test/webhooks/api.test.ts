// Registration API: shapes, roles, tenancy, validation and the SSRF refusals that the
// test allow-list (loopback only) does not cover.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newUser, type TestUser } from '../support/community'
import { api } from '../support/http'
import { refusedNotations } from '../support/ssrf'
import { register, type Setup, setup } from '../support/webhooks'

let s: Setup
let other: Setup
let member: TestUser

beforeAll(async () => {
	s = await setup('webhooks-api')
	other = await setup('webhooks-api-other')
	member = await newUser(s.community)
})

describe('POST /webhook', () => {
	test('returns the webhook with its own whsec_ secret', async () => {
		const reply = await api('POST', '/webhook', {
			token: s.cm.token,
			body: {
				webhook_type: 'post.created',
				url: 'http://127.0.0.1:9/a',
				is_active: true,
				extra: 'ignored',
			},
		})
		expect(reply.status).toBe(200)
		expect(reply.body.success).toBe(true)
		const hook = reply.body.data.webhook
		expect(hook).toMatchObject({
			webhook_type: 'post.created',
			url: 'http://127.0.0.1:9/a',
			is_active: true,
			deactivated_at: null,
			deactivation_reason: null,
		})
		expect(hook.id).toMatch(/^[0-9a-f]{24}$/)
		expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
		expect(hook.created_at).toBeNumber()
		const again = await register(s, 'http://127.0.0.1:9/b', 'post.created')
		expect(again.secret).not.toBe(hook.secret)
		// The secret is shown once: reads leave it out.
		const read = await api('GET', `/webhook/${hook.id}`, { token: s.cm.token })
		expect(read.body.data.webhook.secret).toBeUndefined()
	})

	test('accepts every event of the spec plus conversation.create; refuses unknown types', async () => {
		for (const type of [
			'conversation.create',
			'notifications.feed',
			'chatroom.user.tagged',
			'comment.react',
		]) {
			const reply = await api('POST', '/webhook', {
				token: s.cm.token,
				body: { webhook_type: type, url: 'http://127.0.0.1:9/t' },
			})
			expect(reply.status).toBe(200)
			expect(reply.body.data.webhook.is_active).toBe(true)
		}
		const bad = await api('POST', '/webhook', {
			token: s.cm.token,
			body: { webhook_type: 'post.exploded', url: 'http://127.0.0.1:9/t' },
		})
		expect(bad.status).toBe(400)
		expect(bad.body.error_message).toContain('webhook_type')
	})

	test('a duplicate type and url is 409', async () => {
		await register(s, 'http://127.0.0.1:9/dup', 'post.liked')
		const dup = await api('POST', '/webhook', {
			token: s.cm.token,
			body: { webhook_type: 'post.liked', url: 'http://127.0.0.1:9/dup' },
		})
		expect(dup.status).toBe(409)
	})

	test('refuses private, link-local and reserved addresses and bad urls with 400', async () => {
		// The one list of refused notations, shared with the link previews' tests.
		const refused = refusedNotations
		for (const url of refused) {
			const reply = await api('POST', '/webhook', {
				token: s.cm.token,
				body: { webhook_type: 'post.created', url },
			})
			expect(reply.status, url).toBe(400)
			expect(reply.body.error_message, url).toContain('private or reserved')
		}
		for (const url of [
			'ftp://example.com/x',
			'not a url',
			'http://user:pw@127.0.0.1/x',
			'http://no-such-host.invalid/x',
		]) {
			const reply = await api('POST', '/webhook', {
				token: s.cm.token,
				body: { webhook_type: 'post.created', url },
			})
			expect(reply.status, url).toBe(400)
			expect(reply.body.success).toBe(false)
		}
	})

	test('members get 403; no token 401', async () => {
		const reply = await api('POST', '/webhook', {
			token: member.token,
			body: { webhook_type: 'post.created', url: 'http://127.0.0.1:9/m' },
		})
		expect(reply.status).toBe(403)
		expect(reply.body.success).toBe(false)
		expect((await api('GET', '/webhook', { token: member.token })).status).toBe(403)
		expect((await api('GET', '/webhook')).status).toBe(401)
	})
})

describe('GET|PATCH|DELETE /webhook/:webhook_id', () => {
	test('lists only the community own webhooks; another community id is 404', async () => {
		const mine = await register(s, 'http://127.0.0.1:9/list', 'comment.added')
		const theirs = await register(other, 'http://127.0.0.1:9/list', 'comment.added')
		const list = await api('GET', '/webhook', { token: s.cm.token })
		const ids = list.body.data.webhooks.map((w: { id: string }) => w.id)
		expect(ids).toContain(mine.id)
		expect(ids).not.toContain(theirs.id)
		for (const [method, path] of [
			['GET', `/webhook/${theirs.id}`],
			['PATCH', `/webhook/${theirs.id}`],
			['DELETE', `/webhook/${theirs.id}`],
			['GET', `/webhook/${theirs.id}/deliveries`],
			['POST', `/webhook/${theirs.id}/replay`],
			['GET', '/webhook/nope'],
		] as const) {
			const body =
				method === 'PATCH' ? { is_active: false } : method === 'POST' ? { since: 0 } : undefined
			const reply = await api(method, path, { token: s.cm.token, body })
			expect(reply.status, `${method} ${path}`).toBe(404)
		}
		expect(
			(await api('GET', `/webhook/${theirs.id}`, { token: other.cm.token })).body.data.webhook
				.is_active,
		).toBe(true)
	})

	test('PATCH changes url and type (re-validated), deactivates with a reason, reactivates clearing it', async () => {
		const hook = await register(s, 'http://127.0.0.1:9/patch', 'post.pinned')
		const moved = await api('PATCH', `/webhook/${hook.id}`, {
			token: s.cm.token,
			body: { url: 'http://127.0.0.1:9/patched', webhook_type: 'post.tagged' },
		})
		expect(moved.status).toBe(200)
		expect(moved.body.data.webhook).toMatchObject({
			url: 'http://127.0.0.1:9/patched',
			webhook_type: 'post.tagged',
			is_active: true,
		})
		const refused = await api('PATCH', `/webhook/${hook.id}`, {
			token: s.cm.token,
			body: { url: 'http://10.0.0.5/x' },
		})
		expect(refused.status).toBe(400)
		const off = await api('PATCH', `/webhook/${hook.id}`, {
			token: s.cm.token,
			body: { is_active: false },
		})
		expect(off.body.data.webhook.is_active).toBe(false)
		expect(off.body.data.webhook.deactivated_at).toBeNumber()
		expect(off.body.data.webhook.deactivation_reason).toContain(s.cm.uuid)
		const on = await api('PATCH', `/webhook/${hook.id}`, {
			token: s.cm.token,
			body: { is_active: true },
		})
		expect(on.body.data.webhook).toMatchObject({
			is_active: true,
			deactivated_at: null,
			deactivation_reason: null,
		})
		const member403 = await api('PATCH', `/webhook/${hook.id}`, {
			token: member.token,
			body: { is_active: false },
		})
		expect(member403.status).toBe(403)
	})

	test('DELETE removes it', async () => {
		const hook = await register(s, 'http://127.0.0.1:9/delete', 'post.created')
		const gone = await api('DELETE', `/webhook/${hook.id}`, { token: s.cm.token })
		expect(gone.status).toBe(200)
		expect(gone.body.data).toEqual({ webhook_id: hook.id, deleted: true })
		expect((await api('GET', `/webhook/${hook.id}`, { token: s.cm.token })).status).toBe(404)
		expect((await api('DELETE', `/webhook/${hook.id}`, { token: s.cm.token })).status).toBe(404)
	})

	test('replay validates its range', async () => {
		const hook = await register(s, 'http://127.0.0.1:9/replay', 'post.created')
		const backwards = await api('POST', `/webhook/${hook.id}/replay`, {
			token: s.cm.token,
			body: { since: 2000, until: 1000 },
		})
		expect(backwards.status).toBe(400)
		const garbage = await api('POST', `/webhook/${hook.id}/replay`, {
			token: s.cm.token,
			body: { since: 'yesterday-ish' },
		})
		expect(garbage.status).toBe(400)
		const empty = await api('POST', `/webhook/${hook.id}/replay`, {
			token: s.cm.token,
			body: { since: '2020-01-01T00:00:00Z', until: '2020-01-02T00:00:00Z' },
		})
		expect(empty.status).toBe(200)
		expect(empty.body.data.replayed).toBe(0)
		const badStatus = await api('GET', `/webhook/${hook.id}/deliveries?status=lost`, {
			token: s.cm.token,
		})
		expect(badStatus.status).toBe(400)
	})
})
