// On an empty database in development, create a demo project so a newcomer can try
// the API at once; its key and the owner's test number are logged.
import { config } from '../../config'
import { sql } from '../../lib/db'
import { AppError } from '../../lib/errors'
import { log } from '../../lib/log'
import { countProjects } from './repo'
import { createProject } from './service'

export const DEMO_OWNER = { countryCode: '91', mobile: '9999999999', otp: '123456' }

export async function ensureDemoProject(): Promise<void> {
	if (config.isProduction || (await countProjects(sql)) > 0) return
	const project = await createProject({
		name: 'Demo community',
		ownerCountryCode: DEMO_OWNER.countryCode,
		ownerMobile: DEMO_OWNER.mobile,
	}).catch((error) => {
		// Another process starting at the same time created it first.
		if (error instanceof AppError && error.status === 409) return null
		throw error
	})
	if (!project) return
	log.info(
		{ ...project, owner_country_code: DEMO_OWNER.countryCode, owner_mobile: DEMO_OWNER.mobile },
		'demo project created: use api_key as x-api-key; the owner logs in with /otp/generate and /otp/verify',
	)
	console.log(
		`demo project: ${JSON.stringify(project)} dashboard owner ${DEMO_OWNER.countryCode}-${DEMO_OWNER.mobile}` +
			(config.NODE_ENV === 'development' ? ` (OTP ${DEMO_OWNER.otp})` : ''),
	)
}
