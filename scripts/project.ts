// Operator command: create a project, its community and its dashboard owner.
//   bun run scripts/project.ts create --name NAME --owner-country-code CC --owner-mobile NUMBER
// Prints exactly one JSON line {"api_key","community_id","project_id"} on stdout (the
// key is shown only here; it is stored hashed). Everything else goes to stderr.
import { parseArgs } from 'node:util'
import { config } from '../src/config'
import { ensureDatabase, sql } from '../src/lib/db'
import { AppError } from '../src/lib/errors'
import { migrate } from '../src/lib/migrate'
import { createProject } from '../src/modules/projects/service'

const usage =
	'usage: bun run scripts/project.ts create --name NAME --owner-country-code CC --owner-mobile NUMBER'

function fail(message: string): never {
	console.error(message)
	process.exit(2)
}

function readArgs() {
	let parsed: ReturnType<typeof parse>
	try {
		parsed = parse()
	} catch (error) {
		fail(`${(error as Error).message}\n${usage}`)
	}
	const { positionals, values } = parsed
	if (positionals[0] !== 'create' || positionals.length !== 1) fail(usage)
	const name = values.name?.trim()
	const countryCode = values['owner-country-code']?.trim().replace(/^\+/, '')
	const mobile = values['owner-mobile']?.trim()
	if (!name) fail(`--name is required\n${usage}`)
	if (!countryCode || !/^\d{1,4}$/.test(countryCode))
		fail(`--owner-country-code must be 1 to 4 digits\n${usage}`)
	if (!mobile || !/^\d{4,15}$/.test(mobile)) fail(`--owner-mobile must be 4 to 15 digits\n${usage}`)
	return { name, ownerCountryCode: countryCode, ownerMobile: mobile }
}

function parse() {
	return parseArgs({
		args: process.argv.slice(2),
		allowPositionals: true,
		options: {
			name: { type: 'string' },
			'owner-country-code': { type: 'string' },
			'owner-mobile': { type: 'string' },
		},
	})
}

const input = readArgs()
try {
	await ensureDatabase(config.DATABASE_URL)
	await migrate((message) => console.error(message))
	const project = await createProject(input)
	console.log(JSON.stringify(project))
} catch (error) {
	console.error(
		error instanceof AppError
			? error.message
			: `project create failed: ${(error as Error).message}`,
	)
	process.exitCode = 1
} finally {
	await sql.end({ timeout: 5 })
}
// Imported modules may hold other connections open (Redis); the command is done.
process.exit(process.exitCode ?? 0)
