// Fan-out on write: a worker loop that adds each new post to the connection feed of
// every follower of its author (and removes deleted posts). Jobs are Postgres rows
// written in the post's own transaction (`enqueueFanOut`), claimed with a lease,
// checkpointed after every batch, and retried after a crash or an error; ZADD and
// ZREM are idempotent by member, so a replayed batch never adds a post twice.
import { Histogram } from 'prom-client'
import { config } from '../config'
import { acrossCommunities, type Db, sql } from '../lib/db'
import { FAILING_AFTER, jobFailed, jobSucceeded, registerFailingJobs } from '../lib/job-health'
import { keys } from '../lib/keys'
import { log } from '../lib/log'
import { registry } from '../lib/metrics'
import { redis } from '../lib/redis'
import { pipelineBySlot } from '../lib/redis-slots'
import { reachesFollowers } from '../lib/visibility'
import { startWorkerLoop } from '../lib/worker-loop'
import { queueAdd, queueRemove } from './connection-feed'
import {
	afterBatch,
	checkpointFanOutJob,
	claimFanOutJobs,
	communitiesWithDueFanOut,
	type FanOutJob,
	failFanOutJob,
	failingFanOutJobs,
	finishFanOutJob,
	followersAfter,
	insertFanOutJob,
	insertFanOutJobs,
	insertNewPostJobs,
	type NewFanOutJob,
	newPostJobsCtes,
} from './connection-repo'

const BATCH = 5000
const LEASE_SECONDS = 30
const MAX_ATTEMPTS = 10
const IDLE_POLL_MS = 1000
// Jobs claimed at once; a job waiting behind a long one keeps its lease (30 s) meanwhile.
const CLAIM = 32

/** The failing jobs of every community, for /ready and jobs_failing. */
const countFailing = () => acrossCommunities((tx) => failingFanOutJobs(tx, FAILING_AFTER))
registerFailingJobs('fanout', countFailing)

const fanOutLag = new Histogram({
	name: 'feed_fanout_lag_seconds',
	help: 'Time from enqueue of a fan-out job until every follower feed holds the post',
	buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
	registers: [registry],
})

export interface FanOutPost {
	id: string
	community_id: number
	user_id: number
	visibility: string
	created_at: number
	is_deleted?: boolean
}

/** Call inside the transaction that shows a post to connections: its fan-out is then as durable as the write. */
export function enqueueFanOut(tx: Db, post: FanOutPost): Promise<void> {
	return insertFanOutJobs(tx, fanOutJobsOf([post]))
}

/**
 * The jobs of posts this transaction creates (a batch, or one), in one statement: none
 * for an author nobody has ever followed (connection-repo.ts newPostJobsCtes).
 */
export async function enqueueFanOuts(tx: Db, posts: FanOutPost[]): Promise<void> {
	await insertNewPostJobs(tx, fanOutJobsOf(posts))
}

/** enqueueFanOuts as CTEs of a caller's one statement (connection-repo.ts newPostJobsCtes). */
export function fanOutCtes(db: Db, posts: FanOutPost[]) {
	return newPostJobsCtes(db, fanOutJobsOf(posts))
}

/** The add jobs of posts that followers' feeds show (public and connections ones). */
function fanOutJobsOf(posts: FanOutPost[]): NewFanOutJob[] {
	return posts.filter(reachesFollowers).map((post) => ({
		community_id: post.community_id,
		kind: 'add',
		post_id: post.id,
		author_id: post.user_id,
		score: post.created_at,
	}))
}

/** Call inside the transaction that deletes a post (or hides it from connections). */
export async function enqueueFanOutRemoval(tx: Db, post: FanOutPost): Promise<void> {
	await insertFanOutJob(tx, {
		community_id: post.community_id,
		kind: 'remove',
		post_id: post.id,
		author_id: post.user_id,
		score: post.created_at,
	})
}

// Followers' feeds carry their own hash tags ({u<id>}), so on a Redis Cluster a batch
// spans many slots: it goes out as one pipeline per slot owner (one on a standalone Redis).
// Returns false when an add job should stop: its post was deleted or hidden meanwhile.
async function runBatch(job: FanOutJob, followers: number[]): Promise<boolean> {
	await pipelineBySlot(redis, followers, keys.connFeed, (pipeline, follower) => {
		if (job.kind === 'add') queueAdd(pipeline, follower, job.post_id, job.score)
		else queueRemove(pipeline, follower, job.post_id)
	})
	if (job.kind === 'remove') return true
	const { fansOut, stopped } = await afterBatch(
		sql,
		job.community_id,
		job.post_id,
		job.author_id,
		followers,
	)
	if (!fansOut) {
		await takeBack(job, followers)
		return false
	}
	await takeBack(job, stopped)
	return true
}

/**
 * The removal of a post (or of a follower's connection) may run while this add job is
 * between batches — or resumes, leased by a worker that was killed — and find the post
 * not yet added. So once a batch's ZADDs are in, re-check: a post deleted or hidden
 * meanwhile is taken back out of the whole batch, a follower who rejected or blocked the
 * author out of theirs. A removal committed after this check runs after our ZADD too.
 */
async function takeBack(job: FanOutJob, followers: number[]): Promise<void> {
	await pipelineBySlot(redis, followers, keys.connFeed, (pipeline, follower) =>
		queueRemove(pipeline, follower, job.post_id),
	)
}

/**
 * Test hook (FANOUT_PAUSE_AFTER_CHECKPOINT, refused outside NODE_ENV=test): the job
 * stops for good after its first checkpoint and says so, so the crash test kills the
 * worker at a known point instead of racing its batches.
 */
async function pauseForCrashTest(job: FanOutJob, cursor: number): Promise<never> {
	log.info({ postId: job.post_id, cursor }, 'fan-out paused after checkpoint')
	return new Promise<never>(() => {})
}

/** Runs one job from its checkpoint to the end. */
export async function processFanOutJob(job: FanOutJob): Promise<void> {
	const started = performance.now()
	let cursor = job.cursor
	let next = followersAfter(sql, job.community_id, job.author_id, cursor, BATCH)
	for (;;) {
		const followers = await next
		if (followers.length === 0) break
		cursor = followers[followers.length - 1]
		// Read the next batch from Postgres while Redis takes this one.
		next =
			followers.length === BATCH
				? followersAfter(sql, job.community_id, job.author_id, cursor, BATCH)
				: Promise.resolve([])
		if (!(await runBatch(job, followers))) {
			next.catch(() => {}) // the prefetched batch is not needed
			break
		}
		// The last batch needs no checkpoint: the job is finished next (most jobs are one batch).
		const last = followers.length < BATCH && !config.FANOUT_PAUSE_AFTER_CHECKPOINT
		if (last) break
		await checkpointFanOutJob(sql, job, cursor, LEASE_SECONDS)
		if (config.FANOUT_PAUSE_AFTER_CHECKPOINT) await pauseForCrashTest(job, cursor)
	}
	await finishFanOutJob(sql, job)
	fanOutLag.observe((performance.now() - started) / 1000)
}

/** The communities with due jobs, found across communities (no lock: claims lock per community). */
const dueCommunities = () => acrossCommunities((tx) => communitiesWithDueFanOut(tx))

/**
 * Claims and runs jobs until none is due; returns how many ran. Jobs are claimed
 * CLAIM at a time, in one community at a time: the jobs of authors nobody follows (most
 * new posts' jobs) are finished by the claiming statement itself, the others run one
 * after another.
 */
export async function drainFanOut(): Promise<number> {
	let ran = 0
	for (;;) {
		const communities = await dueCommunities()
		if (communities.length === 0) return ran
		for (const communityId of communities)
			for (;;) {
				const claimed = await claimAndRun(communityId)
				ran += claimed
				if (claimed < CLAIM) break
			}
	}
}

/** One claim of up to CLAIM jobs of the community, run; how many were claimed. */
async function claimAndRun(communityId: number): Promise<number> {
	const started = performance.now()
	const jobs = await claimFanOutJobs(sql, communityId, LEASE_SECONDS, CLAIM)
	const idle = jobs.filter((job) => !job.busy)
	if (idle.length > 0) {
		const seconds = (performance.now() - started) / 1000
		for (const _ of idle) fanOutLag.observe(seconds)
		jobSucceeded('fanout')
	}
	for (const job of jobs) if (job.busy) await runJob(job)
	return jobs.length
}

/** One job to its end; a failure is recorded on the job (retried later, or parked). */
async function runJob(job: FanOutJob): Promise<void> {
	try {
		await processFanOutJob(job)
		jobSucceeded('fanout')
	} catch (error) {
		const giveUp = job.attempts >= MAX_ATTEMPTS
		jobFailed('fanout', error, { jobId: job.id, attempts: job.attempts })
		if (giveUp)
			log.error({ err: error, jobId: job.id }, 'fan-out job parked after too many attempts')
		await failFanOutJob(sql, job, String(error), Math.min(2 ** job.attempts, 300), giveUp)
	}
}

/**
 * What the worker loops claim next. A NOTIFY names the community of new jobs: its jobs
 * are claimed at once, one statement, as before there were communities to find. The
 * others — retries, expired leases, a NOTIFY missed — are found by a scan across
 * communities, at most once per IDLE_POLL_MS in this process (the idle poll).
 */
function claimQueue() {
	const notified = new Set<number>()
	let scannedAt = 0
	return {
		notify(payload: string) {
			const communityId = Number(payload)
			if (Number.isSafeInteger(communityId) && communityId > 0) notified.add(communityId)
			else scannedAt = 0 // no community named: look everywhere on the next pass
		},
		/** A community whose claim came back full has more: it is claimed again next. */
		more: (communityId: number) => notified.add(communityId),
		async next(): Promise<number[]> {
			if (notified.size > 0) {
				const communities = [...notified]
				notified.clear()
				return communities
			}
			if (performance.now() - scannedAt < IDLE_POLL_MS) return []
			scannedAt = performance.now()
			return dueCommunities()
		},
	}
}

/**
 * The worker loops (lib/worker-loop.ts): woken by NOTIFY at commit, polling every
 * second for expired leases and retries.
 */
export function startFanOutConsumer(concurrency = 2): () => Promise<void> {
	const queue = claimQueue()
	const listening = sql
		.listen('fanout', (payload) => {
			queue.notify(payload)
			loop.wake()
		})
		.catch((error) => {
			log.error({ err: error }, 'fan-out LISTEN failed; polling only')
			return null
		})
	const loop = startWorkerLoop({
		// A short claim took every due job of its community: the loop sleeps until a NOTIFY
		// (or the idle poll, for retries) instead of claiming again to find none (a
		// statement per post at a trickle of posts). A NOTIFY during the pass runs the next
		// one at once.
		pass: async () => {
			let full = false
			for (const communityId of await queue.next())
				if ((await claimAndRun(communityId)) === CLAIM) {
					queue.more(communityId)
					full = true
				}
			return full
		},
		onError: (error) => jobFailed('fanout', error, { where: 'claim loop' }),
		idleMs: IDLE_POLL_MS,
		loops: concurrency,
	})
	return async () => {
		await loop.stop()
		await (await listening)?.unlisten()
	}
}
