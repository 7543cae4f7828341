// Postgres: one porsager client for the process. Repositories take a `Db` so they
// run the same on the pool or inside `sql.begin(tx => ...)`.
import postgres from 'postgres'
import { config } from '../config'

export const sql = postgres(config.DATABASE_URL, {
	max: 20,
	idle_timeout: 30,
	onnotice: () => {},
	transform: { undefined: null },
})

export type Db = postgres.Sql | postgres.TransactionSql

/** Creates the database named in `url` when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
	const target = new URL(url)
	const name = decodeURIComponent(target.pathname.slice(1))
	const admin = new URL(url)
	admin.pathname = '/postgres'
	const root = postgres(admin.toString(), { max: 1, onnotice: () => {} })
	try {
		const [found] = await root`select 1 from pg_database where datname = ${name}`
		if (!found) await root.unsafe(`create database "${name.replaceAll('"', '""')}"`)
	} catch (error) {
		// Two processes may race to create it; the loser sees 42P04 (duplicate_database).
		if ((error as { code?: string }).code !== '42P04') throw error
	} finally {
		await root.end()
	}
}

/** True when Postgres answers within a second (a dead server must not hang /ready). */
export async function pingDb(): Promise<boolean> {
	try {
		const answer = await Promise.race([
			sql`select 1 as ok`.then(() => true),
			new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000)),
		])
		return answer
	} catch {
		return false
	}
}
