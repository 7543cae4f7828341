// Dashboard login by one-time password: only numbers registered as a project owner
// may log in; codes are 6 digits, HMACed in Redis, with try and send limits.
import { randomInt } from 'node:crypto'
import { config } from '../../../config'
import { sql } from '../../../lib/db'
import { AppError, badRequest, tooManyRequests } from '../../../lib/errors'
import { log } from '../../../lib/log'
import { DEMO_OWNER } from '../../projects/demo'
import { findCommunity } from '../../projects/repo'
import { presentCommunity } from '../../projects/service'
import { presentUser } from '../../users/present'
import { findOwnerByMobile, type UserRow } from '../../users/repo'
import { issueTokens } from '../service'
import type { OtpGenerate, OtpVerify } from './model'
import { sendOtp } from './sender'
import { checkCode, countSend, MAX_SENDS, storeCode } from './store'

interface Phone {
	countryCode: string
	mobile: string
	/** `91-9999999999`, the form of OTP_TEST_NUMBERS and of the Redis keys. */
	id: string
}

export function normalizePhone(countryCode: string, mobile: string): Phone {
	const cc = countryCode.trim().replace(/^\+/, '')
	const number = mobile.trim()
	return { countryCode: cc, mobile: number, id: `${cc}-${number}` }
}

const isDemoOwner = (phone: Phone) =>
	config.NODE_ENV === 'development' &&
	phone.id === normalizePhone(DEMO_OWNER.countryCode, DEMO_OWNER.mobile).id

/**
 * Test numbers have a fixed code and get no message; in development so does the demo
 * owner, for a caller on loopback only (anyone can read its code in the README).
 */
function fixedCode(phone: Phone, fromLoopback: boolean): string | undefined {
	const configured =
		config.otpTestNumbers.get(phone.id) ?? config.otpTestNumbers.get(`+${phone.id}`)
	if (configured) return configured
	if (fromLoopback && isDemoOwner(phone)) return DEMO_OWNER.otp
}

async function ownerFor(phone: Phone): Promise<UserRow> {
	const owner = await findOwnerByMobile(sql, phone.countryCode, phone.mobile)
	if (!owner || owner.is_deleted)
		throw new AppError(404, 'No dashboard owner is registered with this number')
	return owner
}

export async function generateOtp(query: OtpGenerate, fromLoopback: boolean) {
	const phone = normalizePhone(query.country_code, query.mobile_no)
	await ownerFor(phone)
	const sends = await countSend(phone.id)
	if (sends.count > MAX_SENDS) throw tooManyRequests(sends.retryAfter)
	const fixed = fixedCode(phone, fromLoopback)
	const code = fixed ?? String(randomInt(0, 1_000_000)).padStart(6, '0')
	await storeCode(phone.id, code)
	if (fixed) log.info({ phone: phone.id }, 'otp for a test number: fixed code, nothing sent')
	else
		await sendOtp({
			country_code: phone.countryCode,
			mobile_no: phone.mobile,
			otp: code,
			ttl_seconds: config.OTP_TTL_SECONDS,
			message: `${code} is your plaza dashboard code. It expires in ${Math.round(config.OTP_TTL_SECONDS / 60)} minutes.`,
		})
	return { expires_in: config.OTP_TTL_SECONDS, sends_left: MAX_SENDS - sends.count }
}

export async function verifyOtp(query: OtpVerify, fromLoopback: boolean) {
	const phone = normalizePhone(query.country_code, query.mobile_no)
	const owner = await ownerFor(phone)
	// A fixed code asked for from loopback must not be spent from elsewhere.
	if (!fromLoopback && isDemoOwner(phone) && query.otp.trim() === DEMO_OWNER.otp)
		throw badRequest('Invalid OTP')
	const result = await checkCode(phone.id, query.otp.trim())
	if (result === 'wrong') throw badRequest('Invalid OTP')
	if (result === 'missing') throw badRequest('OTP expired or not requested, generate a new one')
	if (result === 'exhausted') throw badRequest('Too many wrong attempts, generate a new OTP')
	const { access_token, refresh_token } = await issueTokens(sql, owner)
	const community = await findCommunity(sql, owner.community_id)
	return {
		auth_token: access_token,
		refresh_token,
		user: presentUser(owner),
		community: community ? presentCommunity(community) : null,
	}
}
