import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { config } from '../../../src/config'
import { keys } from '../../../src/lib/keys'
import { redis } from '../../../src/lib/redis'
import { newCommunity, type TestCommunity } from '../../support/community'
import { api } from '../../support/http'
import { startReceiver } from '../../support/receiver'

// The webhook sender is used so the test can read the codes an SMS gateway would get.
let gatewayStatus = 200
const gateway = startReceiver(() => new Response('ok', { status: gatewayStatus }))
type Sms = { country_code: string; mobile_no: string; otp: string; message: string }
const sms = () => gateway.receipts.map((r) => r.json as Sms)
const saved = { sender: config.OTP_SENDER, url: config.OTP_WEBHOOK_URL }
let ipCounter = 0

beforeAll(() => {
	config.OTP_SENDER = 'webhook'
	config.OTP_WEBHOOK_URL = gateway.urlOf('/sms')
})
afterAll(() => {
	config.OTP_SENDER = saved.sender
	config.OTP_WEBHOOK_URL = saved.url
	gateway.stop()
})

// Each test calls from its own address so the per-IP OTP limit of one test does not
// leak into another.
function caller() {
	const ip = `10.9.${process.pid % 250}.${++ipCounter}`
	const query = (c: TestCommunity, extra = '') =>
		`country_code=${c.ownerCountryCode}&mobile_no=${c.ownerMobile}${extra}`
	return {
		generate: (c: TestCommunity) =>
			api('GET', `/otp/generate?${query(c)}`, { headers: { 'x-forwarded-for': ip } }),
		verify: (c: TestCommunity, otp: string) =>
			api('GET', `/otp/verify?${query(c, `&otp=${otp}`)}`, { headers: { 'x-forwarded-for': ip } }),
		raw: (path: string) => api('GET', path, { headers: { 'x-forwarded-for': ip } }),
	}
}

const lastCodeFor = (c: TestCommunity) =>
	sms().findLast((m) => m.mobile_no === c.ownerMobile)?.otp as string
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

describe('GET /otp/generate and /otp/verify', () => {
	test('the code reaches the gateway; verify returns an owner auth_token and a refresh_token', async () => {
		const c = await newCommunity('otp-login')
		const call = caller()
		const generated = await call.generate(c)
		expect(generated.status).toBe(200)
		expect(generated.body).toMatchObject({
			success: true,
			data: { expires_in: 300, sends_left: 2 },
		})
		const code = lastCodeFor(c)
		expect(code).toMatch(/^\d{6}$/)
		expect(sms().findLast((m) => m.mobile_no === c.ownerMobile)).toMatchObject({
			country_code: '1',
		})
		// Only the HMAC is stored, never the code itself.
		const stored = await redis.hgetall(keys.otp(`1-${c.ownerMobile}`))
		expect(stored.h).toMatch(/^[0-9a-f]{64}$/)
		expect(JSON.stringify(stored)).not.toContain(code)

		const wrong = await call.verify(c, wrongCode(code))
		expect(wrong.status).toBe(400)
		expect(wrong.body).toEqual({ success: false, error_message: 'Invalid OTP' })

		const ok = await call.verify(c, code)
		expect(ok.status).toBe(200)
		expect(ok.body.data.auth_token).toBeString()
		expect(ok.body.data.refresh_token).toBeString()
		expect(ok.body.data.user.sdk_client_info.community).toBe(c.communityId)
		expect(ok.body.data.community.id).toBe(c.communityId)

		const role = await api('GET', '/community/member/role', { token: ok.body.data.auth_token })
		expect(role.body.data).toMatchObject({ role: 'owner', is_owner: true, is_cm: true })
		const refreshed = await api('POST', '/user/refresh', { token: ok.body.data.refresh_token })
		expect(refreshed.status).toBe(200)

		// A code works once.
		const again = await call.verify(c, code)
		expect(again.status).toBe(400)
		expect(again.body.error_message).toBe('OTP expired or not requested, generate a new one')
	})

	test('accepts the country code with a plus sign', async () => {
		const c = await newCommunity('otp-plus')
		const call = caller()
		expect(
			(await call.raw(`/otp/generate?country_code=%2B1&mobile_no=${c.ownerMobile}`)).status,
		).toBe(200)
		const ok = await call.raw(
			`/otp/verify?country_code=%2B1&mobile_no=${c.ownerMobile}&otp=${lastCodeFor(c)}`,
		)
		expect(ok.status).toBe(200)
	})

	test('an unregistered number cannot log in and gets no message', async () => {
		const call = caller()
		const generate = await call.raw('/otp/generate?country_code=1&mobile_no=5550000001')
		expect(generate.status).toBe(404)
		expect(generate.body).toEqual({
			success: false,
			error_message: 'No dashboard owner is registered with this number',
		})
		const verify = await call.raw('/otp/verify?country_code=1&mobile_no=5550000001&otp=123456')
		expect(verify.status).toBe(404)
		expect(sms().some((m) => m.mobile_no === '5550000001')).toBe(false)
	})

	test('an expired code is refused', async () => {
		const c = await newCommunity('otp-expired')
		const call = caller()
		await call.generate(c)
		const code = lastCodeFor(c)
		const ttl = await redis.ttl(keys.otp(`1-${c.ownerMobile}`))
		expect(ttl).toBeGreaterThan(290)
		expect(ttl).toBeLessThanOrEqual(300)
		await redis.pexpire(keys.otp(`1-${c.ownerMobile}`), 1)
		await Bun.sleep(20)
		const reply = await call.verify(c, code)
		expect(reply.status).toBe(400)
		expect(reply.body.error_message).toBe('OTP expired or not requested, generate a new one')
	})

	test('after five wrong tries even the right code is refused until a new one is sent', async () => {
		const c = await newCommunity('otp-tries')
		const call = caller()
		await call.generate(c)
		const code = lastCodeFor(c)
		for (let i = 0; i < 5; i++) {
			const wrong = await call.verify(c, wrongCode(code))
			expect(wrong.body.error_message).toBe('Invalid OTP')
		}
		const blocked = await call.verify(c, code)
		expect(blocked.status).toBe(400)
		expect(blocked.body.error_message).toBe('Too many wrong attempts, generate a new OTP')

		await call.generate(c)
		const fresh = await call.verify(c, lastCodeFor(c))
		expect(fresh.status).toBe(200)
	})

	test('at most three sends per number per ten minutes (429 with Retry-After)', async () => {
		const c = await newCommunity('otp-sends')
		const call = caller()
		for (let i = 0; i < 3; i++) expect((await call.generate(c)).status).toBe(200)
		const before = gateway.receipts.length
		const fourth = await call.generate(c)
		expect(fourth.status).toBe(429)
		expect(fourth.body.success).toBe(false)
		const retryAfter = Number(fourth.headers.get('retry-after'))
		expect(retryAfter).toBeGreaterThan(500)
		expect(retryAfter).toBeLessThanOrEqual(600)
		expect(gateway.receipts.length).toBe(before)
		// The last code sent still works.
		expect((await call.verify(c, lastCodeFor(c))).status).toBe(200)
	})

	test('a stricter per-IP limit applies to the OTP routes', async () => {
		const c = await newCommunity('otp-ip')
		const call = caller()
		const limit = config.OTP_RATE_LIMIT_PER_MINUTE
		config.OTP_RATE_LIMIT_PER_MINUTE = 3
		try {
			const statuses: number[] = []
			for (let i = 0; i < 8; i++) statuses.push((await call.verify(c, '000000')).status)
			expect(statuses).toContain(429)
		} finally {
			config.OTP_RATE_LIMIT_PER_MINUTE = limit
		}
		// Another address is not affected.
		expect((await caller().generate(c)).status).toBe(200)
	})

	test('OTP_TEST_NUMBERS fix the code and send nothing', async () => {
		const c = await newCommunity('otp-fixed')
		config.otpTestNumbers.set(`1-${c.ownerMobile}`, '424242')
		try {
			const call = caller()
			const before = gateway.receipts.length
			expect((await call.generate(c)).status).toBe(200)
			expect(gateway.receipts.length).toBe(before)
			expect((await call.verify(c, '424243')).status).toBe(400)
			expect((await call.verify(c, '424242')).status).toBe(200)
		} finally {
			config.otpTestNumbers.delete(`1-${c.ownerMobile}`)
		}
	})

	test('a gateway failure is 502, not a silent success', async () => {
		const c = await newCommunity('otp-gateway')
		gatewayStatus = 500
		try {
			const reply = await caller().generate(c)
			expect(reply.status).toBe(502)
			expect(reply.body).toEqual({
				success: false,
				error_message: 'Could not send the OTP, try again later',
			})
		} finally {
			gatewayStatus = 200
		}
	})

	test('bad queries are 400', async () => {
		const call = caller()
		for (const path of [
			'/otp/generate',
			'/otp/generate?country_code=1',
			'/otp/generate?country_code=abc&mobile_no=9999999999',
			'/otp/verify?country_code=1&mobile_no=9999999999',
			'/otp/verify?country_code=1&mobile_no=9999999999&otp=12ab56',
			'/otp/verify?country_code=1&mobile_no=9999999999&otp=1234567',
		]) {
			const reply = await call.raw(path)
			expect(reply.status, path).toBe(400)
			expect(reply.body.success).toBe(false)
		}
	})
})
