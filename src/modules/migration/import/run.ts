// One import run (DESIGN §14), the same for the CLI and the HTTP job:
//   1. read: each line is checked and staged with COPY (bad lines go to the rejects);
//   2. apply: set-based steps in dependency order, each committed on its own, so a run
//      killed at any point leaves only whole steps behind and a restart (matching by
//      the customer's ids) ends exactly as one clean run would;
//   3. refresh: the community's feeds and caches are rebuilt from Postgres.
// No events are written: an import is history. `dryRun` runs steps 1 and 2 inside one
// transaction that is rolled back, so the rejects and counts are exactly a real run's.
import { type Db, sql } from '../../../lib/db'
import { keys } from '../../../lib/keys'
import { redis } from '../../../lib/redis'
import { rebuildCommunity } from '../../../timelines'
import {
	analyzeTarget,
	duplicateKeys,
	importComments,
	importConnections,
	importLikes,
	importPosts,
	importTopics,
	importUsers,
	type StepResult,
	settleDuplicates,
} from './apply-repo'
import { type Counts, type RecordType, zeroCounts } from './record-model'
import { parseLine } from './records'
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
	lines: AsyncIterable<string>
	rejects: RejectSink
	dryRun?: boolean
	onProgress?: (progress: ReadProgress) => void
	/** Called between phases ('read', 'apply', 'refresh') for progress displays. */
	onPhase?: (phase: 'apply' | 'refresh') => void
}

export interface Summary {
	imported: Counts
	matched: Counts
	rejects: number
	seconds: number
}

const PROGRESS_EVERY = 5000

async function readInto(db: Db, options: ImportOptions, now: number): Promise<{ rejects: number }> {
	const writer = createStageWriter(db)
	let line = 0
	let rejects = 0
	for await (const raw of options.lines) {
		line++
		if (raw.trim() === '') continue
		const parsed = parseLine(raw, line, now)
		if (parsed.ok) await writer.add(parsed.type, parsed.copyLine)
		else {
			rejects++
			await options.rejects.add(line, parsed.reason, raw)
		}
		if (line % PROGRESS_EVERY === 0) options.onProgress?.({ done: line, rejects })
	}
	await writer.end()
	options.onProgress?.({ done: line, rejects })
	return { rejects }
}

type Step = [RecordType, (db: Db) => Promise<StepResult>]

function steps(c: number, now: number): Step[] {
	return [
		['user', (db) => importUsers(db, c, now)],
		['topic', (db) => importTopics(db, c, now)],
		['post', (db) => importPosts(db, c)],
		['comment', (db) => importComments(db, c)],
		['like', (db) => importLikes(db, c)],
		['connection', (db) => importConnections(db, c, now)],
	]
}

async function applyAll(
	db: Db,
	communityId: number,
	now: number,
	inOwnTransactions: boolean,
): Promise<{ imported: Counts; matched: Counts }> {
	const imported = zeroCounts()
	const matched = zeroCounts()
	const keys = duplicateKeys(db)
	for (const [type] of steps(communityId, now)) {
		const table = stageTable[type]
		matched[type] += await settleDuplicates(db, table, keys[table] as never)
	}
	for (const [type, step] of steps(communityId, now)) {
		const result = inOwnTransactions ? await inTransaction(db, () => step(db)) : await step(db)
		// Planner statistics of a table that just grew a lot, before the next step joins it.
		if (result.imported > 1000) await analyzeTarget(db, type)
		imported[type] += result.imported
		matched[type] += result.matched
	}
	return { imported, matched }
}

async function reportStagedRejects(db: Db, sink: RejectSink): Promise<number> {
	let after = 0
	let count = 0
	for (;;) {
		const page = await stagedRejects(db, after, 1000)
		if (page.length === 0) return count
		for (const r of page) await sink.add(r.line, r.reason, r.raw)
		count += page.length
		after = page[page.length - 1]?.line as number
	}
}

/** The apply phase inside one transaction that is rolled back: a real run's counts and rejects, nothing kept. */
function rehearse(db: Db, communityId: number, now: number, sink: RejectSink): Promise<Applied> {
	return inTransaction(
		db,
		async () => {
			const result = await applyAll(db, communityId, now, false)
			return { ...result, rejects: await reportStagedRejects(db, sink) }
		},
		false,
	)
}

type Applied = { imported: Counts; matched: Counts; rejects: number }

export async function runImport(options: ImportOptions): Promise<Summary> {
	const started = performance.now()
	const now = Date.now()
	const db = await sql.reserve()
	try {
		await createStage(db)
		const read = await readInto(db, options, now)
		await analyzeStage(db)
		options.onPhase?.('apply')
		let applied: Applied
		const pendingSince = await redis.get(keys.importPending(options.communityId))
		if (options.dryRun) applied = await rehearse(db, options.communityId, now, options.rejects)
		else {
			// Durable until the feeds are rebuilt: a run killed after its last step but
			// before the rebuild leaves it, and the re-run (which imports nothing) rebuilds.
			await redis.set(keys.importPending(options.communityId), String(now))
			const result = await applyAll(db, options.communityId, now, true)
			applied = { ...result, rejects: await reportStagedRejects(db, options.rejects) }
			// A re-run that added nothing after a finished run: the feeds already hold everything.
			const changed = Object.values(result.imported).some((n) => n > 0)
			if (changed || pendingSince !== null) {
				options.onPhase?.('refresh')
				await rebuildCommunity(options.communityId)
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
