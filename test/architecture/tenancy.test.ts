// DESIGN §21, checked on the schema the migrations built (the test database's catalog):
// every table is either a named global table (a Citus reference table, or one distributed
// by its own key) or a tenant table whose primary key, unique indexes and foreign keys to
// other tenant tables all lead with community_id, so Citus can distribute it by
// community_id and keep every key check on one shard.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from '../support/db'

/**
 * The tables the migrations create: the schema under test. Other tests make scratch
 * tables of their own in the same database (the group-commit and coalesce probes),
 * which are nobody's schema.
 */
function migrationTables(): Set<string> {
	const dir = join(import.meta.dir, '../../migrations')
	const names = new Set<string>()
	for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')))
		for (const match of readFileSync(join(dir, file), 'utf8').matchAll(
			/create table (?:if not exists )?([a-z_0-9]+)/gi,
		))
			names.add((match[1] as string).toLowerCase())
	return names
}

/** Tables that are not per community, and why. */
const GLOBAL_TABLES: Record<string, string> = {
	projects: 'reference table: one row per project, read by every api key lookup',
	communities: 'reference table: the tenant list itself (community_id points here)',
	push_credentials: 'reference table: per project, read by every push sender',
	owner_phones: 'reference table: an owner phone number and its community, read by the OTP login',
	idempotency_keys: 'keyed by scope (the caller), distributed by scope on Citus',
	schema_migrations: 'bookkeeping of the migration runner, coordinator only',
}

/**
 * Unique indexes that stay global on purpose, each with its reason. On Citus they hold
 * per shard only, so each is a known gap until it moves to a reference lookup.
 */
const GLOBAL_UNIQUES: Record<string, string> = {
	// An owner's phone number logs in to exactly one project (OTP login finds the owner
	// by number, before any community is known). On Citus the reference table
	// owner_phones (0196) holds it across projects; this index stays for plain Postgres
	// (0199 makes it per community on Citus).
	users_owner_mobile: 'owner phone number unique across projects (OTP login by number)',
}

interface Problem {
	table: string
	problem: string
}

async function tenantTables(): Promise<string[]> {
	const rows = await sql<{ table: string }[]>`
		select c.relname as table from pg_class c
		join pg_namespace n on n.oid = c.relnamespace
		where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
		order by 1`
	const schema = migrationTables()
	return rows
		.map((row) => row.table)
		.filter((table) => schema.has(table) && !(table in GLOBAL_TABLES))
}

async function missingCommunityColumn(tables: string[]): Promise<Problem[]> {
	const rows = await sql<{ table: string }[]>`
		select t as table from unnest(${tables}::text[]) t
		where not exists (
			select 1 from pg_attribute a
			where a.attrelid = t::regclass and a.attname = 'community_id' and not a.attisdropped)`
	return rows.map((row) => ({ table: row.table, problem: 'no community_id column' }))
}

async function keysNotLeadingWithCommunity(tables: string[]): Promise<Problem[]> {
	const rows = await sql<{ table: string; index: string; def: string }[]>`
		select c.relname as table, i.relname as index, pg_get_indexdef(x.indexrelid) as def
		from pg_index x
		join pg_class c on c.oid = x.indrelid
		join pg_class i on i.oid = x.indexrelid
		where c.relname = any(${tables}::text[]) and x.indisunique
			and (x.indkey[0] = 0 or (
				select attname from pg_attribute where attrelid = c.oid and attnum = x.indkey[0]
			) <> 'community_id')
		order by 1, 2`
	return rows
		.filter((row) => !(row.index in GLOBAL_UNIQUES))
		.map((row) => ({ table: row.table, problem: `unique index ${row.index}: ${row.def}` }))
}

async function foreignKeysNotLeadingWithCommunity(tables: string[]): Promise<Problem[]> {
	const rows = await sql<{ table: string; name: string; def: string }[]>`
		select c.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as def
		from pg_constraint k
		join pg_class c on c.oid = k.conrelid
		join pg_class r on r.oid = k.confrelid
		where k.contype = 'f' and c.relname = any(${tables}::text[]) and r.relname = any(${tables}::text[])
			and ((select attname from pg_attribute where attrelid = k.conrelid and attnum = k.conkey[1]) <> 'community_id'
				or (select attname from pg_attribute where attrelid = k.confrelid and attnum = k.confkey[1]) <> 'community_id')
		order by 1, 2`
	return rows.map((row) => ({ table: row.table, problem: `foreign key ${row.name}: ${row.def}` }))
}

async function noPrimaryKey(tables: string[]): Promise<Problem[]> {
	const rows = await sql<{ table: string }[]>`
		select t as table from unnest(${tables}::text[]) t
		where not exists (select 1 from pg_constraint where conrelid = t::regclass and contype = 'p')`
	return rows.map((row) => ({ table: row.table, problem: 'no primary key' }))
}

/**
 * Old keys still indexed without community_id, each with the statement that needs it.
 * Migration 0190 rebuilt every key as (community_id, …) and kept each old key as a plain
 * index; 0201 dropped those no statement needs (every other statement names its
 * community, so the new key serves it). These serve statements that span communities
 * (lib/db.ts acrossCommunities) and find rows by these columns alone. The tests fail
 * when one loses its index, and when a key not listed here has such a copy (an index
 * write per row that serves nothing). An entry goes once no statement reads its table
 * by these columns without the community.
 */
const UNKEYED_LOOKUPS: [table: string, columns: string[], why: string][] = [
	[
		'feed_activity',
		['user_id'],
		'the recompute job pages every community’s readers in user id order (timelines/personalised-repo.ts activeUsersAfter)',
	],
	[
		'refresh_tokens',
		['token_hash'],
		'a refresh token issued before tokens carried their community is found by its hash alone (sessions/repo.ts findRefreshTokenCommunity)',
	],
	[
		'webhook_attempts',
		['id'],
		'the nightly prune finds the communities holding attempts past the cutoff by id range (webhooks/repo.ts pruneDeliveryLog)',
	],
	[
		'webhook_deliveries',
		['id'],
		'the same prune, for finished deliveries past the cutoff (the pending-only partial indexes cannot serve it)',
	],
]

/** An entry of UNKEYED_LOOKUPS without a whole (not partial) index led by its columns. */
async function unindexedLookups(): Promise<Problem[]> {
	const problems: Problem[] = []
	for (const [table, columns] of UNKEYED_LOOKUPS) {
		const [row] = await sql<{ found: boolean }[]>`
			select exists (
				select 1 from pg_index x
				where x.indrelid = ${table}::regclass and x.indpred is null and x.indexprs is null
					and array(
						select a.attname::text
						from unnest((x.indkey::int2[])[0:${columns.length - 1}]) with ordinality u(n, i)
						join pg_attribute a on a.attrelid = x.indrelid and a.attnum = u.n
						order by u.i) = ${columns}::text[]) as found`
		if (!row?.found) problems.push({ table, problem: `no index on (${columns.join(', ')})` })
	}
	return problems
}

/**
 * Plain (not unique, not partial) indexes on exactly a key's columns after community_id:
 * what 0190 kept of each old key. Each costs an index write per row, so one that no
 * statement needs (not in UNKEYED_LOOKUPS) is a problem.
 */
async function unkeyedKeyCopies(
	tables: string[],
): Promise<{ table: string; index: string; columns: string[] }[]> {
	return sql<{ table: string; index: string; columns: string[] }[]>`
		with idx as (
			select x.indrelid, x.indisunique as is_unique, i.relname as index,
				x.indpred is null and x.indexprs is null as whole,
				array(select a.attname::text from unnest(x.indkey::int2[]) with ordinality u(n, k)
					join pg_attribute a on a.attrelid = x.indrelid and a.attnum = u.n order by u.k) as columns
			from pg_index x join pg_class i on i.oid = x.indexrelid
			where x.indrelid = any(${tables}::text[]::regclass[]))
		select c.relname as table, copy.index, copy.columns
		from idx copy join pg_class c on c.oid = copy.indrelid
		where not copy.is_unique and copy.whole and exists (
			select 1 from idx key
			where key.indrelid = copy.indrelid and key.is_unique and key.whole
				and key.columns = array['community_id'] || copy.columns)
		order by 1, 2`
}

describe('tenancy (DESIGN §21)', () => {
	test('every named global table exists', async () => {
		const rows = await sql<{ table: string }[]>`
			select relname as table from pg_class
			where relname = any(${Object.keys(GLOBAL_TABLES)}::text[]) and relkind in ('r', 'p')`
		expect(rows.map((row) => row.table).sort()).toEqual(Object.keys(GLOBAL_TABLES).sort())
	})

	test('every tenant table is keyed by community_id', async () => {
		const tables = await tenantTables()
		expect(tables.length).toBeGreaterThan(40)
		const problems = [
			...(await missingCommunityColumn(tables)),
			...(await noPrimaryKey(tables)),
			...(await keysNotLeadingWithCommunity(tables)),
			...(await foreignKeysNotLeadingWithCommunity(tables)),
		]
		expect(problems).toEqual([])
	})

	test('the old keys stay indexed for lookups without community_id', async () => {
		expect(await unindexedLookups()).toEqual([])
	})

	test('no other old key keeps an index without community_id', async () => {
		const copies = await unkeyedKeyCopies(await tenantTables())
		const listed = (copy: { table: string; columns: string[] }) =>
			UNKEYED_LOOKUPS.some(
				([table, columns]) => table === copy.table && columns.join() === copy.columns.join(),
			)
		// The listed lookups are such copies: the query sees them.
		expect(copies.filter(listed)).toHaveLength(UNKEYED_LOOKUPS.length)
		expect(copies.filter((copy) => !listed(copy))).toEqual([])
	})
})
