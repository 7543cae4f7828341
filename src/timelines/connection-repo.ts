// SQL of the connection feed engine: followers of an author, posts of the people a
// user follows, and the durable fan-out job queue. Every statement names its community
// (DESIGN §21); those spanning communities run in acrossCommunities (lib/db.ts).
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../lib/db'
import { reachesFollowersSql } from '../lib/visibility'

/** Posts that may enter connection feeds: undeleted and shared with connections. */
export interface FeedEntry {
	id: string
	created_at: number
}

export async function followersAfter(
	db: Db,
	communityId: number,
	authorId: number,
	afterUserId: number,
	limit: number,
): Promise<number[]> {
	const rows = await db<{ user_id: number }[]>`
		select c.user_id::float8 as user_id from connections c
		where c.community_id = ${communityId} and c.connection_id = ${authorId} and c.user_id > ${afterUserId}
		order by c.user_id limit ${limit}`
	return rows.map((r) => r.user_id)
}

/**
 * After a batch of an add job, in one statement: whether the post still fans out (false
 * once deleted or no longer shown to connections: what enqueueFanOutRemoval follows), and
 * those of `followerIds` who no longer follow the author (a reject or block since the
 * batch was read).
 */
export async function afterBatch(
	db: Db,
	communityId: number,
	postId: string,
	authorId: number,
	followerIds: number[],
): Promise<{ fansOut: boolean; stopped: number[] }> {
	const [row] = await db<{ fans_out: boolean; stopped: number[] }[]>`
		select exists (select 1 from posts where community_id = ${communityId} and id = ${postId}
				and ${reachesFollowersSql(db, 'posts')}) as fans_out,
			array(select id::float8 from unnest(${followerIds}::int8[]) as f(id)
				where not exists (select 1 from connections c where c.community_id = ${communityId}
					and c.connection_id = ${authorId} and c.user_id = f.id)
			) as stopped`
	return { fansOut: row?.fans_out ?? false, stopped: row?.stopped ?? [] }
}

export async function recentPostsOfAuthor(
	db: Db,
	communityId: number,
	authorId: number,
	limit: number,
): Promise<FeedEntry[]> {
	return db<FeedEntry[]>`
		select id, created_at::float8 as created_at from posts
		where community_id = ${communityId} and user_id = ${authorId} and ${reachesFollowersSql(db, 'posts')}
		order by created_at desc limit ${limit}`
}

export async function postIdsOfAuthor(
	db: Db,
	communityId: number,
	authorId: number,
	ids: string[],
): Promise<string[]> {
	if (ids.length === 0) return []
	const rows = await db<{ id: string }[]>`
		select id from posts
		where community_id = ${communityId} and user_id = ${authorId} and id = any(${ids}::text[])`
	return rows.map((r) => r.id)
}

/** The newest posts of everyone the user follows: a connection feed rebuilt from the source of truth. */
export async function connectionFeedFromDb(
	db: Db,
	communityId: number,
	userId: number,
	limit: number,
	offset = 0,
): Promise<FeedEntry[]> {
	return db<FeedEntry[]>`
		select p.id, p.created_at::float8 as created_at
		from connections c
		join lateral (
			select id, created_at from posts
			where community_id = ${communityId} and user_id = c.connection_id
				and ${reachesFollowersSql(db, 'posts')}
			order by created_at desc limit ${limit + offset}
		) p on true
		where c.community_id = ${communityId} and c.user_id = ${userId}
		order by p.created_at desc, p.id desc limit ${limit} offset ${offset}`
}

export interface FanOutJob {
	id: string
	community_id: number
	kind: 'add' | 'remove'
	post_id: string
	author_id: number
	score: number
	cursor: number
	attempts: number
}

export async function insertFanOutJob(
	db: Db,
	job: Omit<FanOutJob, 'id' | 'cursor' | 'attempts'>,
): Promise<void> {
	await insertFanOutJobs(db, [job])
}

export type NewFanOutJob = Omit<FanOutJob, 'id' | 'cursor' | 'attempts'>

/** Many jobs in one statement, with one notification. */
export async function insertFanOutJobs(db: Db, jobs: NewFanOutJob[]): Promise<void> {
	if (jobs.length === 0) return
	await db`with ${jobsCtes(db, jobs, db``)} select * from fanout_notified`
}

/** The add jobs of new posts in one statement (newPostJobsCtes: none for never-followed authors). */
export async function insertNewPostJobs(db: Db, jobs: NewFanOutJob[]): Promise<void> {
	if (jobs.length === 0) return
	await db`with ${newPostJobsCtes(db, jobs)} select * from fanout_notified`
}

/**
 * The add jobs of new posts as CTEs of a caller's statement, without the jobs of authors nobody has
 * ever followed (users.ever_followed): no follower's feed can hold their posts, so their
 * jobs would only be claimed and finished (two row writes and a worker statement per
 * post). The flag is read under a share lock, in id order, so a follow committed while
 * the post is written cannot miss it (migrations/0065_ever_followed.sql says how).
 */
export function newPostJobsCtes(db: Db, jobs: NewFanOutJob[]) {
	const authors = [...new Set(jobs.map((j) => j.author_id))]
	// One community's posts (their batches are per community): named as a value, so Citus
	// runs the locking read on its shard (DESIGN §21).
	const [communityId, ...others] = new Set(jobs.map((j) => j.community_id))
	if (others.length > 0) throw new Error('new post jobs of several communities')
	return db`
		never_followed as materialized (
			select id from users
			where community_id = ${communityId ?? 0} and id = any(${authors}::int8[]) and not ever_followed
			order by id for share),
		${jobsCtes(db, jobs, db`where j.author_id not in (select id from never_followed)`)}`
}

/**
 * The jobs that pass `filter` (on `j`): `fanout_job` (a row per job) and `fanout_notified`,
 * one row — the caller's statement must read it, or Postgres skips it. The notification
 * names each community with new jobs: the worker claims there first (fanout.ts).
 */
function jobsCtes(db: Db, jobs: NewFanOutJob[], filter: PendingQuery<Row[]>) {
	// The notification is delivered at commit, so the worker wakes only for jobs it can see.
	return db`
		fanout_job as (
			insert into fanout_jobs (community_id, kind, post_id, author_id, score)
			select * from unnest(${jobs.map((j) => j.community_id)}::int[], ${jobs.map((j) => j.kind)}::text[],
				${jobs.map((j) => j.post_id)}::text[], ${jobs.map((j) => j.author_id)}::int8[],
				${jobs.map((j) => j.score)}::bigint[]) as j(community_id, kind, post_id, author_id, score)
			${filter}
			returning community_id),
		fanout_notified as (
			select count(*) from (select pg_notify('fanout', c::text)
				from (select distinct community_id as c from fanout_job) job_community) n)`
}

/**
 * The communities with due jobs (not done, lease free or expired). Spans communities: call
 * it inside acrossCommunities (no lock; the claim locks one community at a time).
 */
export async function communitiesWithDueFanOut(tx: Db): Promise<number[]> {
	const rows = await tx<{ community_id: number }[]>`
		select distinct community_id from fanout_jobs
		where done_at is null and (lease_until is null or lease_until < now())`
	return rows.map((r) => r.community_id)
}

/**
 * Claims up to `limit` of the oldest due jobs of a community in one statement: those whose
 * author has a follower past the job's cursor get a lease (`busy`; a crashed worker's
 * jobs are due again when it ends), the others have nothing left to do and are finished
 * by the same statement (most new posts' authors have no followers).
 */
export function claimFanOutJobs(
	db: Db,
	communityId: number,
	leaseSeconds: number,
	limit: number,
): Promise<(FanOutJob & { busy: boolean })[]> {
	return db<(FanOutJob & { busy: boolean })[]>`
		with due as (
			select f.id, exists (
				select 1 from connections c
				where c.community_id = ${communityId} and c.connection_id = f.author_id and c.user_id > f.cursor
			) as busy, now() as claimed_at, now() + make_interval(secs => ${leaseSeconds}) as lease_until
			from fanout_jobs f
			where f.community_id = ${communityId} and f.done_at is null
				and (f.lease_until is null or f.lease_until < now())
			order by f.id limit ${limit} for update skip locked)
		-- The times come from due: Citus takes no stable function inside CASE in an UPDATE's SET.
		update fanout_jobs j set attempts = j.attempts + 1,
			lease_until = case when due.busy then due.lease_until end,
			done_at = case when due.busy then null else due.claimed_at end
		from due where j.community_id = ${communityId} and j.id = due.id
		returning j.id::text, j.community_id, j.kind, j.post_id, j.author_id::float8 as author_id,
			j.score::float8 as score, j.cursor::float8 as cursor, j.attempts, due.busy`
}

/** A job as its row is found: its community and id. */
export type FanOutJobRef = Pick<FanOutJob, 'community_id' | 'id'>

/** Records progress and extends the lease. */
export async function checkpointFanOutJob(
	db: Db,
	job: FanOutJobRef,
	cursor: number,
	leaseSeconds: number,
): Promise<void> {
	await db`
		update fanout_jobs set cursor = greatest(cursor, ${cursor}), lease_until = now() + make_interval(secs => ${leaseSeconds})
		where community_id = ${job.community_id} and id = ${job.id}`
}

export async function finishFanOutJob(db: Db, job: FanOutJobRef): Promise<void> {
	await db`
		update fanout_jobs set done_at = now(), lease_until = null
		where community_id = ${job.community_id} and id = ${job.id}`
}

/**
 * Records a failed attempt: due again in `retryInSeconds`, or, when `give_up`, parked
 * (lease until infinity, not done) so that it stays counted as failing until an
 * operator re-queues it (docs/scaling.md).
 */
export async function failFanOutJob(
	db: Db,
	job: FanOutJobRef,
	error: string,
	retryInSeconds: number,
	give_up: boolean,
): Promise<void> {
	await db`
		update fanout_jobs set last_error = ${error},
			lease_until = ${give_up ? db`'infinity'::timestamptz` : db`now() + make_interval(secs => ${retryInSeconds})`}
		where community_id = ${job.community_id} and id = ${job.id}`
}

/**
 * Deletes jobs finished more than `hours` ago; returns how many. Spans communities: call
 * it inside acrossCommunities (no lock taken).
 */
export async function pruneFinishedFanOutJobs(db: Db, hours: number): Promise<number> {
	const rows = await db`
		delete from fanout_jobs where done_at < now() - make_interval(hours => ${hours}) returning 1`
	return rows.length
}

/**
 * Jobs not done that failed at least `attempts` times (the partial index of pending jobs
 * serves it). Spans communities: call it inside acrossCommunities.
 */
export async function failingFanOutJobs(db: Db, attempts: number): Promise<number> {
	const [row] = await db`
		select count(*)::int as n from fanout_jobs
		where done_at is null and attempts >= ${attempts} and last_error is not null`
	return row.n
}

export async function markFeedRead(
	db: Db,
	userId: number,
	communityId: number,
	now: number,
): Promise<void> {
	await db`
		insert into feed_activity (user_id, community_id, last_read_at) values (${userId}, ${communityId}, ${now})
		on conflict (community_id, user_id) do update set last_read_at = excluded.last_read_at`
}
