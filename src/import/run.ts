// One import run (DESIGN §14), the same for the CLI and the HTTP job:
//   1. read: each line is checked and staged with COPY (bad lines go to the rejects);
//   2. apply: set-based steps in dependency order, each committed on its own, so a run
//      killed at any point leaves only whole steps behind and a restart (matching by
//      the customer's ids) ends exactly as one clean run would;
//   3. refresh: the community's feeds and caches are rebuilt from Postgres.
// No events are written: an import is history. `dryRun` runs steps 1 and 2 inside one
// transaction that is rolled back, so the rejects and counts are exactly a real run's.
import { type Db, sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { rebuildCommunity } from '../timelines'
import {
	analyzeTarget,
	duplicateKeys,
	importConnections,
	importTopics,
	importUsers,
	mayDeferRowChecks,
	type StepResult,
	settleDuplicates,
} from './apply-repo'
import { importComments, importPosts, prepareContent, recountTouched } from './content-repo'
import { counterTally } from './counters'
import { importLikes } from './likes-repo'
import { createParsePool } from './parse-pool'
import type { BatchResult } from './parse-worker'
import { type Counts, type RecordType, recordTypes, zeroCounts } from './record-model'
import { createRepeatWatch, type RepeatWatch } from './repeats'
import {
	analyzeStage,
	createStage,
	dropStage,
	inTransaction,
	stagedRejects,
	stageTable,
} from './stage-repo'
import { createStageWriter } from './stage-writer'

export interface RejectSink {
	add(line: number, reason: string, raw: string): void | Promise<void>
}

export interface ReadProgress {
	done: number
	rejects: number
}

export interface ImportOptions {
	communityId: number
	/** The input's lines, in batches (see lines.ts). */
	lines: AsyncIterable<string[]>
	/**
	 * The same lines again from the start, when the input can be read twice (a file, a
	 * stored upload): the stage then keeps no copy of each line (half of what is copied),
	 * and the lines the set-based checks refuse are read back by number at the end.
	 */
	reread?: () => AsyncIterable<string[]>
	rejects: RejectSink
	dryRun?: boolean
	onProgress?: (progress: ReadProgress) => void
	/** Called between phases ('read', 'apply', 'refresh') for progress displays. */
	onPhase?: (phase: 'apply' | 'refresh') => void
	/** Called after each part of a run with its wall time (profiling: `--timings`). */
	onTiming?: (part: string, ms: number) => void
}

export interface Summary {
	imported: Counts
	matched: Counts
	rejects: number
	seconds: number
}

const PROGRESS_EVERY = 5000

type Timer = (part: string) => void

/** Reports the time since the previous mark under `part`. */
function timer(report?: (part: string, ms: number) => void): Timer {
	let last = performance.now()
	return (part) => {
		const now = performance.now()
		report?.(part, Math.round(now - last))
		last = now
	}
}

/** Batches parsing at once: enough to keep every thread busy while the first is consumed. */
const PARSING_AHEAD = 8

interface Read {
	rejects: number
	/** Which types' staged rows may repeat a customer id (the rest need no duplicate check). */
	repeats: RepeatWatch
}

async function readInto(db: Db, options: ImportOptions, now: number): Promise<Read> {
	const writer = createStageWriter(db)
	const repeats = createRepeatWatch()
	const pool = createParsePool(now, options.reread === undefined)
	const parsing: Promise<BatchResult>[] = []
	let lines = 0
	let rejects = 0
	let reported = 0
	// Results are taken in the order the batches were sent: rejects and rows in line order.
	const takeOldest = async () => {
		const result = await (parsing.shift() as Promise<BatchResult>)
		for (const [line, reason, raw] of result.rejects) await options.rejects.add(line, reason, raw)
		rejects += result.rejects.length
		for (const chunk of result.staged) {
			repeats.add(chunk.type, chunk.hashes)
			const full = writer.add(chunk)
			if (full) await full
		}
	}
	try {
		for await (const batch of options.lines) {
			const parsed = pool.parse(batch, lines + 1)
			// Awaited in order by takeOldest; a failure must not surface as unhandled meanwhile.
			parsed.catch(() => {})
			parsing.push(parsed)
			lines += batch.length
			if (parsing.length >= PARSING_AHEAD) await takeOldest()
			if (lines - reported >= PROGRESS_EVERY) {
				reported = lines
				options.onProgress?.({ done: lines, rejects })
			}
		}
		while (parsing.length > 0) await takeOldest()
	} finally {
		pool.close()
	}
	await writer.end()
	options.onProgress?.({ done: lines, rejects })
	return { rejects, repeats }
}

/** What the steps of one run add up, and how they report their parts' times. */
interface Tally {
	imported: Counts
	matched: Counts
	mark: Timer
	/** Foreign-key checks are made per step as a set instead of per row (apply-repo.ts). */
	deferChecks: boolean
}

async function count(db: Db, tally: Tally, type: RecordType, result: StepResult): Promise<void> {
	tally.imported[type] += result.imported
	tally.matched[type] += result.matched
	tally.mark(type)
	// Planner statistics of a table that just grew a lot, before the next step joins it.
	if (result.imported > 1000) {
		await analyzeTarget(db, type)
		tally.mark(`analyze ${type}`)
	}
}

/** The apply phase's transactions, in dependency order; each commits on its own. */
type Step = (db: Db, tally: Tally) => Promise<void>

function steps(c: number, now: number): Step[] {
	return [
		async (db, t) => count(db, t, 'user', await importUsers(db, c, now, t.deferChecks)),
		async (db, t) => count(db, t, 'topic', await importTopics(db, c, now)),
		// Posts, comments, likes and their counters in one transaction: the counters
		// written with the rows are corrected at its end, never seen half-done.
		async (db, t) => {
			const matched = await prepareContent(db, c, t.deferChecks)
			for (const type of ['post', 'comment', 'like'] as const) t.matched[type] += matched[type]
			t.mark('matched content')
			const counters = counterTally()
			await count(db, t, 'post', await importPosts(db, c, counters))
			await count(db, t, 'comment', await importComments(db, c, counters))
			await count(db, t, 'like', await importLikes(db, c, counters))
			if (counters.exact()) t.mark('counters (exact as predicted)')
			else {
				await recountTouched(db, c)
				t.mark('counters')
			}
		},
		async (db, t) => count(db, t, 'connection', await importConnections(db, c, now, t.deferChecks)),
	]
}

async function applyAll(
	db: Db,
	communityId: number,
	now: number,
	inOwnTransactions: boolean,
	repeats: RepeatWatch,
	mark: Timer = () => {},
): Promise<{ imported: Counts; matched: Counts }> {
	const tally: Tally = {
		imported: zeroCounts(),
		matched: zeroCounts(),
		mark,
		deferChecks: await mayDeferRowChecks(db),
	}
	const keys = duplicateKeys(db)
	for (const type of recordTypes) {
		if (!repeats.mayRepeat(type)) continue
		const table = stageTable[type]
		tally.matched[type] += await settleDuplicates(db, table, keys[table] as never)
	}
	mark('duplicates')
	for (const step of steps(communityId, now)) {
		if (inOwnTransactions) await inTransaction(db, () => step(db, tally))
		else await step(db, tally)
	}
	return { imported: tally.imported, matched: tally.matched }
}

/** The rejects found in SQL, in line order, to the sink; their lines read back if not staged. */
async function reportStagedRejects(
	db: Db,
	sink: RejectSink,
	reread?: () => AsyncIterable<string[]>,
): Promise<number> {
	let page = await stagedRejects(db, 0, 1000)
	if (page.length === 0) return 0
	if (!reread) {
		let count = 0
		while (page.length > 0) {
			for (const r of page) await sink.add(r.line, r.reason, r.raw as string)
			count += page.length
			page = await stagedRejects(db, page[page.length - 1]?.line as number, 1000)
		}
		return count
	}
	// One pass over the input beside the rejects' pages (both in line order).
	let count = 0
	let next = 0
	let line = 0
	for await (const batch of reread())
		for (const raw of batch) {
			line++
			const reject = page[next]
			if (reject?.line !== line) continue
			await sink.add(line, reject.reason, raw)
			count++
			if (++next === page.length) {
				page = await stagedRejects(db, line, 1000)
				next = 0
				if (page.length === 0) return count
			}
		}
	throw new Error(`the input ended before line ${page[next]?.line} when read again`)
}

/** The apply phase inside one transaction that is rolled back: a real run's counts and rejects, nothing kept. */
function rehearse(
	db: Db,
	options: ImportOptions,
	now: number,
	repeats: RepeatWatch,
): Promise<Applied> {
	return inTransaction(
		db,
		async () => {
			const result = await applyAll(db, options.communityId, now, false, repeats)
			return {
				...result,
				rejects: await reportStagedRejects(db, options.rejects, options.reread),
			}
		},
		false,
	)
}

type Applied = { imported: Counts; matched: Counts; rejects: number }

export async function runImport(options: ImportOptions): Promise<Summary> {
	const started = performance.now()
	const now = Date.now()
	const mark = timer(options.onTiming)
	const db = await sql.reserve()
	try {
		await createStage(db)
		const read = await readInto(db, options, now)
		mark('read')
		await analyzeStage(db)
		mark('analyze stage')
		options.onPhase?.('apply')
		let applied: Applied
		const pendingSince = await redis.get(keys.importPending(options.communityId))
		if (options.dryRun) applied = await rehearse(db, options, now, read.repeats)
		else {
			// Durable until the feeds are rebuilt: a run killed after its last step but
			// before the rebuild leaves it, and the re-run (which imports nothing) rebuilds.
			await redis.set(keys.importPending(options.communityId), String(now))
			const result = await applyAll(db, options.communityId, now, true, read.repeats, mark)
			applied = {
				...result,
				rejects: await reportStagedRejects(db, options.rejects, options.reread),
			}
			mark('rejects')
			// A re-run that added nothing after a finished run: the feeds already hold everything.
			const changed = Object.values(result.imported).some((n) => n > 0)
			if (changed || pendingSince !== null) {
				options.onPhase?.('refresh')
				await rebuildCommunity(options.communityId)
				mark('refresh')
			}
			await redis.del(keys.importPending(options.communityId))
		}
		return {
			imported: applied.imported,
			matched: applied.matched,
			rejects: read.rejects + applied.rejects,
			seconds: Math.round((performance.now() - started) / 10) / 100,
		}
	} finally {
		// A broken connection takes its temporary tables with it.
		await dropStage(db).catch(() => {})
		db.release()
	}
}
