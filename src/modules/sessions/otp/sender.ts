// Delivering a code: OTP_SENDER=log writes it to the log (development), `webhook`
// POSTs it to OTP_WEBHOOK_URL, where an SMS gateway adapter sends the text.
import { config } from '../../../config'
import { AppError } from '../../../lib/errors'
import { log } from '../../../lib/log'

export interface OtpMessage {
	country_code: string
	mobile_no: string
	otp: string
	ttl_seconds: number
	message: string
}

export async function sendOtp(message: OtpMessage): Promise<void> {
	if (config.OTP_SENDER === 'log' || !config.OTP_WEBHOOK_URL) {
		log.info(
			{ country_code: message.country_code, mobile_no: message.mobile_no, otp: message.otp },
			'otp generated',
		)
		return
	}
	let status = 0
	try {
		const response = await fetch(config.OTP_WEBHOOK_URL, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(message),
			redirect: 'manual',
			signal: AbortSignal.timeout(10_000),
		})
		status = response.status
	} catch (error) {
		log.warn({ err: error }, 'otp webhook unreachable')
	}
	if (status < 200 || status >= 300) {
		log.warn({ status }, 'otp webhook refused the message')
		throw new AppError(502, 'Could not send the OTP, try again later')
	}
}
