// Staging tables of one import run: temporary (private to the run's reserved
// connection, gone with it — a killed run leaves nothing behind), filled with COPY in
// batches, one table per record type plus the rejects the set-based checks find.
import type { Db } from '../lib/db'
import type { RecordType } from './record-model'

export const stageTable: Record<RecordType, string> = {
	user: 'stage_users',
	topic: 'stage_topics',
	post: 'stage_posts',
	comment: 'stage_comments',
	like: 'stage_likes',
	connection: 'stage_connections',
}

export async function createStage(db: Db): Promise<void> {
	// The set-based steps hash whole tables: room for that in memory. No JIT: it spent
	// more compiling the counters' statement (0.4 s at 50,000 records) than running it.
	// The run's own connection; dropStage resets both before it goes back to the pool.
	await db`set work_mem = '64MB'`
	await db`set jit = off`
	// The stage in the backend's own memory (default 8 MB: 1M records' stage, ~90 MB, went
	// through the OS on every pass). Settable only before the session's first temporary
	// table: a pooled connection that held one before keeps what it had.
	await db`set temp_buffers = '256MB'`.catch(() => {})
	await db`
		create temp table stage_users (line integer not null, user_unique_id text not null,
			name text not null, image_url text, is_guest boolean, created_at bigint, raw text)`
	await db`
		create temp table stage_topics (line integer not null, external_id text not null,
			name text not null, parent_external_id text, priority float8, is_enabled boolean, raw text)`
	await db`
		create temp table stage_posts (line integer not null, external_id text not null,
			user_unique_id text not null, text text not null, heading text, created_at bigint not null,
			topic_external_ids jsonb, attachments jsonb, visibility text, raw text)`
	await db`
		create temp table stage_comments (line integer not null, external_id text not null,
			user_unique_id text not null, post_external_id text not null, parent_external_id text,
			text text not null, created_at bigint not null, raw text)`
	await db`
		create temp table stage_likes (line integer not null, user_unique_id text not null,
			post_external_id text, comment_external_id text, created_at bigint, raw text)`
	await db`
		create temp table stage_connections (line integer not null, user_unique_id text not null,
			target_user_unique_id text not null, connection_type text, raw text)`
	await db`create temp table stage_rejects (line integer primary key, reason text not null, raw text)`
	// What a step changed, so it recounts only those counters.
	await db`create temp table touched_posts (id text)`
	await db`create temp table touched_comments (id text)`
	// What this run inserted, so a statement can tell a parent it created from one that
	// existed before (the rows' xmin did that on one node; on Citus it is the shard's own).
	await db`create temp table new_posts (id text)`
	await db`create temp table new_comments (id text)`
}

/** Appends rendered rows (COPY text format, newline-terminated, in chunks) to a type's staging table. */
export async function copyIntoStage(
	db: Db,
	type: RecordType,
	columns: string[],
	chunks: string[],
): Promise<void> {
	const writable = await db`copy ${db(stageTable[type])} (${db(columns)}) from stdin`.writable()
	await new Promise<void>((resolve, reject) => {
		writable.on('error', reject)
		writable.on('finish', resolve)
		writable.end(chunks.join(''))
	})
}

/**
 * Planner statistics (autovacuum never analyses temporary tables): of the columns the
 * steps join on only, from a small sample — the steps need sizes and distinct counts,
 * not histograms, and `raw` and the texts would cost the most.
 */
export async function analyzeStage(db: Db): Promise<void> {
	await db`set default_statistics_target = 10`
	await db`
		analyze stage_users (user_unique_id), stage_topics (external_id, parent_external_id),
			stage_posts (external_id, user_unique_id), stage_comments (external_id, user_unique_id,
			post_external_id, parent_external_id), stage_likes (user_unique_id, post_external_id,
			comment_external_id), stage_connections (user_unique_id, target_user_unique_id)`
	await db`reset default_statistics_target`
}

/** The rejects found in SQL, in line order, a page at a time. */
export async function stagedRejects(
	db: Db,
	afterLine: number,
	limit: number,
): Promise<{ line: number; reason: string; raw: string | null }[]> {
	return db<{ line: number; reason: string; raw: string | null }[]>`
		select line, reason, raw from stage_rejects where line > ${afterLine} order by line limit ${limit}`
}

export async function dropStage(db: Db): Promise<void> {
	await db`reset work_mem`
	await db`reset jit`
	await db`
		drop table if exists stage_users, stage_topics, stage_posts, stage_comments, stage_likes,
			stage_connections, stage_rejects, touched_posts, touched_comments, new_posts, new_comments`
}

/**
 * `work` inside one transaction on the run's reserved connection (porsager's reserved
 * connections have no begin()); `keep: false` rolls it back whatever happens (dry run).
 */
export async function inTransaction<T>(db: Db, work: () => Promise<T>, keep = true): Promise<T> {
	await db`begin`
	try {
		const result = await work()
		if (keep) await db`commit`
		else await db`rollback`
		return result
	} catch (error) {
		await db`rollback`.catch(() => {})
		throw error
	}
}
