// Forward-only migrations: numbered .sql files in /migrations, each applied once in
// its own transaction and recorded in schema_migrations. An advisory lock keeps two
// starting processes from applying the same file twice.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { acrossCommunities } from './db'

const dir = join(import.meta.dir, '../../migrations')

export async function migrate(log: (msg: string) => void = () => {}): Promise<string[]> {
	const applied: string[] = []
	// A migration changes every community's rows and every shard's schema on Citus. The
	// foreign-key checks an ALTER re-runs are planned on the workers too: the lowered
	// multi-shard check goes with the transaction to them (propagate_set_commands).
	await acrossCommunities(async (tx) => {
		await tx`set local citus.propagate_set_commands = 'local'`
		await tx`set local citus.multi_task_query_log_level = 'off'`
		await tx`select pg_advisory_xact_lock(727274)`
		await tx`create table if not exists schema_migrations (
			name text primary key, applied_at timestamptz not null default now())`
		const done = new Set(
			(await tx`select name from schema_migrations`).map((r) => r.name as string),
		)
		const files = readdirSync(dir)
			.filter((f) => f.endsWith('.sql'))
			.sort()
		for (const file of files) {
			if (done.has(file)) continue
			await tx.unsafe(readFileSync(join(dir, file), 'utf8'))
			await tx`insert into schema_migrations (name) values (${file})`
			applied.push(file)
			log(`migration applied: ${file}`)
		}
	})
	return applied
}
