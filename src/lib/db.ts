// Postgres: one porsager client for the process. Repositories take a `Db` so they
// run the same on the pool or inside `sql.begin(tx => ...)`.
import postgres from 'postgres'
import { config } from '../config'

export const sql = postgres(config.DATABASE_URL, {
	max: config.DATABASE_POOL_MAX,
	idle_timeout: 30,
	onnotice: () => {},
	transform: { undefined: null },
})

export type Db = postgres.Sql | postgres.TransactionSql

export type Hook = () => Promise<void>
const commitHooks = new WeakMap<object, Hook[]>()

/**
 * `sql.begin(work)`, then what `work` registered with `afterCommit`, in order, once the
 * transaction has committed (never after a rollback). For derived copies in Redis that
 * must not show what Postgres may still roll back; hooks handle their own errors.
 */
export async function transaction<T>(work: (tx: postgres.TransactionSql) => Promise<T>) {
	const hooks: Hook[] = []
	const result = await beginCollecting(hooks, work)
	for (const hook of hooks) await hook()
	return result
}

/**
 * `sql.begin(work)` where what `work` registers with `afterCommit` lands in `hooks`,
 * for the caller to run once committed (lib/group-commit.ts runs a whole batch's).
 */
export function beginCollecting<T>(
	hooks: Hook[],
	work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
	return sql.begin((tx) => {
		commitHooks.set(tx, hooks)
		return work(tx)
	}) as Promise<T>
}

const earlyCommits = new WeakMap<object, () => void>()

/**
 * beginCollecting for a short transaction whose waits are its round trips: on a reserved
 * connection, BEGIN goes out in the same write as the first statements (sql.begin awaits
 * it first), and `commitNow(tx)` sends COMMIT right behind the last statements instead
 * of after their answers. Postgres runs a connection's statements in order, so nothing
 * changes but the waiting; a failed statement turns a COMMIT already sent into a
 * rollback, and the error still reaches `work`'s awaits. `work` must send nothing after
 * commitNow. Whatever fails, the connection is rolled back before it goes back to the pool.
 */
export async function pipelinedTransaction<T>(
	hooks: Hook[],
	work: (tx: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
	const tx = await sql.reserve()
	commitHooks.set(tx, hooks)
	const begun = tx.unsafe('begin').execute()
	begun.catch(() => {}) // awaited below, after work's own statements
	let committed: Promise<postgres.RowList<postgres.Row[]>> | undefined
	const commit = () => {
		// On the next turn of the event loop: a statement reaches the connection a few
		// microtasks after it is made (awaited, or in Promise.all), and COMMIT must follow
		// every statement made before commitNow. porsager writes them all in one flush.
		committed ??= new Promise((next) => setImmediate(next)).then(() => tx.unsafe('commit'))
		committed.catch(() => {})
	}
	earlyCommits.set(tx, commit)
	try {
		const result = await work(tx)
		await begun
		commit()
		// A COMMIT after a failed statement answers ROLLBACK, not an error.
		if ((await committed)?.command !== 'COMMIT') throw new Error('the transaction rolled back')
		return result
	} catch (error) {
		await tx.unsafe('rollback').catch(() => {})
		throw error
	} finally {
		tx.release()
	}
}

/**
 * In a pipelinedTransaction: sends COMMIT behind the statements made on `tx` so far (call
 * it right after making the last ones, before awaiting them; make none after it).
 * Elsewhere it does nothing: sql.begin commits when its callback returns.
 */
export function commitNow(tx: Db): void {
	earlyCommits.get(tx)?.()
}

/** Runs `hook` after `tx` commits; `tx` must come from `transaction()` (else it throws). */
export function afterCommit(tx: Db, hook: Hook): void {
	const hooks = commitHooks.get(tx)
	if (!hooks) throw new Error('afterCommit needs a transaction opened with transaction()')
	hooks.push(hook)
}

const togetherLists = new WeakMap<object, Map<unknown, unknown[]>>()

/**
 * Adds `item` to what ONE call of `flush` gets after `tx` commits: every write sharing
 * the transaction (the likes of a group-committed batch, lib/group-commit.ts) hands its
 * Redis change to the same call, which sends them in one pipeline — not one round trip
 * per write. `flush` must be the same function each time (it names the list); it gets
 * the items in the order they were added.
 */
export function afterCommitTogether<T>(
	tx: Db,
	flush: (items: T[]) => Promise<void>,
	item: T,
): void {
	const lists = togetherLists.get(tx) ?? new Map<unknown, unknown[]>()
	togetherLists.set(tx, lists)
	const list = lists.get(flush) as T[] | undefined
	if (list) {
		list.push(item)
		return
	}
	const items = [item]
	lists.set(flush, items)
	afterCommit(tx, () => flush(items))
}

/**
 * Reads that tolerate replication lag go to DATABASE_REPLICA_URL when it is set (else
 * to `sql`): the id and row scans of a feed rebuild (a post deleted meanwhile is still
 * filtered on read) and the dashboard overview's counts. Never a cache fill or anything
 * a caller reads back after its own write: those must see the latest commit.
 */
export const replica: postgres.Sql = config.DATABASE_REPLICA_URL
	? postgres(config.DATABASE_REPLICA_URL, {
			max: config.DATABASE_POOL_MAX,
			idle_timeout: 30,
			onnotice: () => {},
			transform: { undefined: null },
		})
	: sql

/** Runs `work` on a connection to the `postgres` database of the server in `url`. */
async function withAdmin<T>(
	url: string,
	work: (root: postgres.Sql, name: string) => Promise<T>,
): Promise<T> {
	const name = decodeURIComponent(new URL(url).pathname.slice(1))
	const admin = new URL(url)
	admin.pathname = '/postgres'
	const root = postgres(admin.toString(), { max: 1, onnotice: () => {} })
	try {
		return await work(root, name)
	} finally {
		await root.end()
	}
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Creates the database named in `url` when it does not exist yet. */
export function ensureDatabase(url: string): Promise<void> {
	return withAdmin(url, async (root, name) => {
		try {
			const [found] = await root`select 1 from pg_database where datname = ${name}`
			if (!found) await root.unsafe(`create database ${quoted(name)}`)
		} catch (error) {
			// Processes started together race to create it: the loser sees 42P04
			// (duplicate_database), or 23505 when both got past the catalog check at once
			// (the unique index on pg_database.datname).
			const code = (error as { code?: string }).code
			if (code !== '42P04' && code !== '23505') throw error
		}
	})
}

/** Drops the database named in `url` (tests start from an empty one). */
export function dropDatabase(url: string): Promise<void> {
	return withAdmin(url, async (root, name) => {
		await root.unsafe(`drop database if exists ${quoted(name)} with (force)`)
	})
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

/**
 * Runs `work` in a transaction whose statements may span communities (DESIGN §21). On a
 * Citus coordinator every other statement must run on one shard (`npm run test:citus`
 * refuses the rest); the named cross-tenant jobs — finding which communities have due
 * work, reapers, pruning, rebuilds of every community — lower that check here, for their
 * own statements only. On plain Postgres the setting is an inert placeholder. Never a
 * row lock in here: Citus refuses `FOR UPDATE` across shards, so a claim finds the
 * communities here and locks rows one community at a time.
 */
export function acrossCommunities<T>(
	work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
	return sql.begin(async (tx) => {
		await tx`set local citus.multi_task_query_log_level = 'off'`
		return work(tx)
	}) as Promise<T>
}
