// Import jobs started over HTTP and their stored uploads: SQL only. A job is claimed
// with a lease (`lease_until`); a job whose lease ran out (its process died) is
// claimable again, and its upload is still here to be read from the start.
import { acrossCommunities, type Db } from '../lib/db'
import { claimPerCommunity } from '../lib/per-community'

export interface JobRow {
	id: string
	community_id: number
	status: 'receiving' | 'queued' | 'running' | 'succeeded' | 'failed'
	bytes: number
	counts: Record<string, unknown>
	rejects: unknown[]
	reject_count: number
	error: string | null
	attempts: number
	created_at: number
	updated_at: number
}

export async function communityExists(db: Db, communityId: number): Promise<boolean> {
	const rows = await db`select 1 from communities where id = ${communityId}`
	return rows.length > 0
}

/** A new job in `receiving`; null when the community already has an unfinished one. */
export async function insertJob(
	db: Db,
	job: { id: string; community_id: number; created_by: number | null; now: number },
): Promise<boolean> {
	const rows = await db`
		insert into import_jobs (id, community_id, created_by, status, created_at, updated_at)
		values (${job.id}, ${job.community_id}, ${job.created_by}, 'receiving', ${job.now}, ${job.now})
		on conflict do nothing returning 1`
	return rows.length > 0
}

export async function appendChunk(
	db: Db,
	communityId: number,
	jobId: string,
	seq: number,
	data: Uint8Array,
): Promise<void> {
	await db`
		insert into import_job_chunks (community_id, job_id, seq, data)
		values (${communityId}, ${jobId}, ${seq}, ${Buffer.from(data)})`
	await db`
		update import_jobs set bytes = bytes + ${data.length}, updated_at = ${Date.now()}
		where community_id = ${communityId} and id = ${jobId}`
}

/**
 * Uploads whose receiving process died (no chunk for a while): dropped, freeing the
 * community. Of every community at once: a delete across communities (no row is claimed).
 */
export async function deleteStaleUploads(before: number): Promise<void> {
	await acrossCommunities(
		(tx) => tx`delete from import_jobs where status = 'receiving' and updated_at < ${before}`,
	)
}

export async function markQueued(
	db: Db,
	communityId: number,
	jobId: string,
	now: number,
): Promise<void> {
	await db`
		update import_jobs set status = 'queued', updated_at = ${now}
		where community_id = ${communityId} and id = ${jobId}`
}

/** An upload that failed (too large, broken connection): the job is dropped with its chunks. */
export async function deleteJob(db: Db, communityId: number, jobId: string): Promise<void> {
	await db`delete from import_jobs where community_id = ${communityId} and id = ${jobId}`
}

export async function findJob(db: Db, communityId: number, jobId: string): Promise<JobRow | null> {
	const [row] = await db<JobRow[]>`
		select id, community_id, status, bytes::float8 as bytes, counts, rejects, reject_count, error, attempts,
			created_at::float8 as created_at, updated_at::float8 as updated_at
		from import_jobs where id = ${jobId} and community_id = ${communityId}`
	return row ?? null
}

/**
 * Claims the oldest queued job, or a running one whose lease expired (its process died):
 * the communities with claimable jobs are found across communities, oldest job first
 * (no lock), then one community's job is claimed (lib/per-community.ts).
 */
export async function claimJob(db: Db, leaseSeconds: number, now: number): Promise<JobRow | null> {
	const [row] = await claimPerCommunity(
		1,
		async (tx) =>
			(
				await tx<{ community_id: number }[]>`
					select community_id from import_jobs
					where status = 'queued' or (status = 'running' and lease_until < now())
					order by created_at limit 10`
			).map((r) => r.community_id),
		(communityId) => db<JobRow[]>`
			update import_jobs set status = 'running', attempts = attempts + 1, updated_at = ${now},
				lease_until = now() + make_interval(secs => ${leaseSeconds})
			where community_id = ${communityId} and id = (
				select id from import_jobs
				where community_id = ${communityId}
					and (status = 'queued' or (status = 'running' and lease_until < now()))
				order by created_at limit 1 for update skip locked)
			returning id, community_id, status, bytes::float8 as bytes, counts, rejects, reject_count, error, attempts,
				created_at::float8 as created_at, updated_at::float8 as updated_at`,
	)
	return row ?? null
}

export async function extendLease(
	db: Db,
	communityId: number,
	jobId: string,
	leaseSeconds: number,
): Promise<void> {
	await db`
		update import_jobs set lease_until = now() + make_interval(secs => ${leaseSeconds})
		where community_id = ${communityId} and id = ${jobId} and status = 'running'`
}

export async function recordProgress(
	db: Db,
	communityId: number,
	jobId: string,
	counts: unknown,
	now: number,
): Promise<void> {
	await db`
		update import_jobs set counts = ${db.json(counts as never)}, updated_at = ${now}
		where community_id = ${communityId} and id = ${jobId}`
}

/** The end of a job: its outcome, and its upload deleted (it is not needed again). */
export async function finishJob(
	db: Db,
	communityId: number,
	jobId: string,
	outcome: {
		status: 'succeeded' | 'failed'
		counts: unknown
		rejects: unknown[]
		rejectCount: number
		error: string | null
	},
	now: number,
): Promise<void> {
	await db`
		update import_jobs set status = ${outcome.status}, counts = ${db.json(outcome.counts as never)},
			rejects = ${db.json(outcome.rejects as never)}, reject_count = ${outcome.rejectCount},
			error = ${outcome.error}, lease_until = null, updated_at = ${now}
		where community_id = ${communityId} and id = ${jobId}`
	await db`delete from import_job_chunks where community_id = ${communityId} and job_id = ${jobId}`
}

/** The stored upload in order, a chunk at a time (memory: one chunk). */
export async function* jobChunks(
	db: Db,
	communityId: number,
	jobId: string,
): AsyncGenerator<Uint8Array> {
	let seq = -1
	for (;;) {
		const [row] = await db<{ seq: number; data: Buffer }[]>`
			select seq, data from import_job_chunks
			where community_id = ${communityId} and job_id = ${jobId} and seq > ${seq} order by seq limit 1`
		if (!row) return
		seq = row.seq
		yield row.data
	}
}
