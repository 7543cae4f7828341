// Query schemas of the dashboard login routes.
import { t } from 'elysia'

const phone = {
	country_code: t.String({ pattern: '^\\s*\\+?\\d{1,4}\\s*$', description: 'e.g. 91 or +91' }),
	mobile_no: t.String({ pattern: '^\\s*\\d{4,15}\\s*$' }),
}

export const OtpGenerateQuery = t.Object(phone)

export const OtpVerifyQuery = t.Object({
	...phone,
	otp: t.String({ pattern: '^\\s*\\d{6}\\s*$', description: 'the 6-digit code' }),
})

export type OtpGenerate = typeof OtpGenerateQuery.static
export type OtpVerify = typeof OtpVerifyQuery.static
