// `bun run migrate`: create the database of DATABASE_URL if missing and apply pending migrations.
import { config } from '../src/config'
import { ensureDatabase, sql } from '../src/lib/db'
import { migrate } from '../src/lib/migrate'

try {
	await ensureDatabase(config.DATABASE_URL)
	const applied = await migrate((message) => console.log(message))
	console.log(
		applied.length === 0 ? 'migrations: up to date' : `migrations: ${applied.length} applied`,
	)
} catch (error) {
	console.error(`migrate failed: ${(error as Error).message}`)
	process.exitCode = 1
} finally {
	await sql.end({ timeout: 5 })
}
// Imported modules may hold other connections open (Redis); the command is done.
process.exit(process.exitCode ?? 0)
