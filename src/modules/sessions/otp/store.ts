// OTP state in Redis: the HMAC of the code and a wrong-try counter in one hash with
// a TTL, and a per-number send counter for the 10-minute window. Checking a code is
// one Lua script so two concurrent guesses cannot both spend the same try.
import { config } from '../../../config'
import { hmac } from '../../../lib/crypto'
import { keys } from '../../../lib/keys'
import { redis } from '../../../lib/redis'

export const MAX_TRIES = 5
export const MAX_SENDS = 3
export const SEND_WINDOW_SECONDS = 600

// 1 match, 0 wrong code, -1 no code (never sent or expired), -2 tries used up.
const checkScript = `
local h = redis.call('HGET', KEYS[1], 'h')
if not h then return -1 end
local tries = tonumber(redis.call('HGET', KEYS[1], 'tries') or '0')
if tries >= tonumber(ARGV[2]) then return -2 end
if h == ARGV[1] then
	redis.call('DEL', KEYS[1])
	return 1
end
redis.call('HINCRBY', KEYS[1], 'tries', 1)
return 0`

// Counts a send; returns the count and the seconds left in the window.
const sendScript = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('TTL', KEYS[1])}`

redis.defineCommand('otpCheck', { numberOfKeys: 1, lua: checkScript })
redis.defineCommand('otpCountSend', { numberOfKeys: 1, lua: sendScript })

interface OtpCommands {
	otpCheck(key: string, digest: string, maxTries: number): Promise<number>
	otpCountSend(key: string, windowSeconds: number): Promise<[number, number]>
}
const commands = redis as unknown as OtpCommands

const digest = (phone: string, code: string) => hmac(`otp:${phone}:${code}`)

export async function countSend(phone: string): Promise<{ count: number; retryAfter: number }> {
	const [count, ttl] = await commands.otpCountSend(keys.otpSends(phone), SEND_WINDOW_SECONDS)
	return { count, retryAfter: Math.max(1, ttl) }
}

export async function storeCode(phone: string, code: string): Promise<void> {
	const key = keys.otp(phone)
	await redis
		.multi()
		.del(key)
		.hset(key, 'h', digest(phone, code), 'tries', 0)
		.expire(key, config.OTP_TTL_SECONDS)
		.exec()
}

export type CheckResult = 'ok' | 'wrong' | 'missing' | 'exhausted'

export async function checkCode(phone: string, code: string): Promise<CheckResult> {
	const result = await commands.otpCheck(keys.otp(phone), digest(phone, code), MAX_TRIES)
	return result === 1 ? 'ok' : result === 0 ? 'wrong' : result === -1 ? 'missing' : 'exhausted'
}
