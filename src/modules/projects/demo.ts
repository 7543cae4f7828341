// On an empty database, on a loopback listener outside production, create a demo
// project so a newcomer can try the API at once; its key and the owner's test number
// are logged. Its owner's OTP is fixed (sessions/otp, loopback callers only), so a
// start that others can reach gets no demo project, only a warning saying why.
import { config } from '../../config'
import { sql } from '../../lib/db'
import { AppError } from '../../lib/errors'
import { log } from '../../lib/log'
import { isLoopbackAddress } from '../../lib/loopback'
import { countProjects } from './repo'
import { createProject } from './service'

export const DEMO_OWNER = { countryCode: '91', mobile: '9999999999', otp: '123456' }

/** Why this start must not create the demo project, or null when it may. */
function demoRefusal(): string | null {
	if (config.isProduction) return 'NODE_ENV=production'
	if (!isLoopbackAddress(config.host)) return `HOST=${config.host} is not a loopback address`
	return null
}

export async function ensureDemoProject(): Promise<void> {
	if ((await countProjects(sql)) > 0) return
	const refused = demoRefusal()
	if (refused) {
		log.warn(
			`NO DEMO PROJECT: the database has no project and ${refused}, so the demo project (fixed owner OTP) is not created; ` +
				'create one with: bun run scripts/project.ts create --name NAME --owner-country-code CC --owner-mobile NUMBER',
		)
		return
	}
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
