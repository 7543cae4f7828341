// Migration rules: the bulk import run from a stream (the CLI) or as a background job
// (POST /migration/import), and the export; the import engine itself (runner, chunks,
// job claims, the run) is src/import/. No Elysia here; scripts and the controller
// both call these functions.
import type { Readable } from 'node:stream'
import { config } from '../../config'
import {
	appendChunk,
	communityExists,
	deleteJob,
	findJob,
	insertJob,
	markQueued,
} from '../../import/jobs-repo'
import { linesOf } from '../../import/lines'
import { progressDisplay } from '../../import/progress'
import { fileRejects } from '../../import/rejects'
import { runImport, type Summary } from '../../import/run'
import { sql } from '../../lib/db'
import { AppError, badRequest, conflict, notFound } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { tooLarge } from '../../lib/input-limits'
import type { Session } from '../auth/plugin'
import {
	exportComments,
	exportConnections,
	exportLikes,
	exportPosts,
	exportTopics,
	exportUsers,
} from './export-repo'

export interface StreamImport {
	communityId: number
	input: NodeJS.ReadableStream
	/** The input again from its start, when it is a file (not stdin): see ImportOptions.reread. */
	reopen?: () => NodeJS.ReadableStream
	totalBytes: number | null
	rejectsPath: string
	dryRun: boolean
	tty: boolean
	/** Each part's wall time to stderr as `{"timing": part, "ms": n}` lines. */
	timings?: boolean
}

/** The CLI's import: a file or stdin, rejects to a file, progress on stderr. */
export async function importFromStream(options: StreamImport): Promise<Summary> {
	if (!(await communityExists(sql, options.communityId)))
		throw new AppError(404, `community ${options.communityId} not found`)
	const rejects = fileRejects(options.rejectsPath)
	const progress = progressDisplay(options.totalBytes, options.tty)
	const reopen = options.reopen
	try {
		return await runImport({
			communityId: options.communityId,
			lines: linesOf(options.input as Readable, progress.bytes),
			reread: reopen ? () => linesOf(reopen() as Readable) : undefined,
			rejects,
			dryRun: options.dryRun,
			onProgress: progress.records,
			onPhase: progress.phase,
			onTiming: options.timings
				? (part, ms) => process.stderr.write(`${JSON.stringify({ timing: part, ms })}\n`)
				: undefined,
		})
	} finally {
		progress.stop()
		await rejects.close()
	}
}

const exporters = [
	exportUsers,
	exportTopics,
	exportPosts,
	exportComments,
	exportLikes,
	exportConnections,
]

/** Absent optional fields are left out rather than written as null. */
function recordLine(row: Record<string, unknown>): string {
	const record: Record<string, unknown> = {}
	for (const [key, value] of Object.entries(row)) if (value !== null) record[key] = value
	return `${JSON.stringify(record)}\n`
}

/** Streams the community as NDJSON (the import format) to `write`, which may apply backpressure. */
export async function exportCommunity(
	communityId: number,
	write: (chunk: string) => Promise<void> | void,
): Promise<number> {
	if (!(await communityExists(sql, communityId)))
		throw new AppError(404, `community ${communityId} not found`)
	let records = 0
	for (const read of exporters) {
		for await (const rows of read(sql, communityId)) {
			await write(rows.map(recordLine).join(''))
			records += rows.length
		}
	}
	return records
}

const NDJSON = /^application\/x-ndjson\b/i
const CHUNK_BYTES = 1024 * 1024

/** The start of the upload must be a JSON object: anything else is not NDJSON. */
function looksLikeNdjson(head: Uint8Array): boolean {
	const text = new TextDecoder()
		.decode(head.subarray(0, 64))
		.replace(/^\uFEFF/, '')
		.trimStart()
	return text === '' || text.startsWith('{')
}

/**
 * POST /migration/import: the body is streamed into the job's stored chunks (never held
 * whole), then the job is queued for a worker. One unfinished job per community.
 */
export async function startImportJob(
	session: Session,
	contentType: string | undefined,
	body: ReadableStream<Uint8Array> | null,
): Promise<{ job_id: string; status: string }> {
	if (!contentType || !NDJSON.test(contentType))
		throw badRequest('Send the records as NDJSON (Content-Type: application/x-ndjson)')
	if (!body) throw badRequest('The request has no body')
	const id = newId()
	if (
		!(await insertJob(sql, {
			id,
			community_id: session.communityId,
			created_by: session.userId,
			now: Date.now(),
		}))
	)
		throw conflict('An import is already running for this community')
	try {
		await storeUpload(session.communityId, id, body)
	} catch (error) {
		await deleteJob(sql, session.communityId, id)
		throw error
	}
	await markQueued(sql, session.communityId, id, Date.now())
	return { job_id: id, status: 'queued' }
}

async function storeUpload(
	communityId: number,
	jobId: string,
	body: ReadableStream<Uint8Array>,
): Promise<void> {
	let pending: Uint8Array[] = []
	let pendingBytes = 0
	let total = 0
	let seq = 0
	const flush = async () => {
		if (pendingBytes === 0) return
		const chunk = Buffer.concat(pending)
		if (seq === 0 && !looksLikeNdjson(chunk))
			throw badRequest('The body is not NDJSON: its first line is not a JSON object')
		await appendChunk(sql, communityId, jobId, seq++, chunk)
		pending = []
		pendingBytes = 0
	}
	for await (const piece of body as unknown as AsyncIterable<Uint8Array>) {
		total += piece.byteLength
		if (total > config.IMPORT_MAX_BYTES) throw tooLarge(config.IMPORT_MAX_BYTES)
		pending.push(piece)
		pendingBytes += piece.byteLength
		if (pendingBytes >= CHUNK_BYTES) await flush()
	}
	await flush()
	if (total === 0) throw badRequest('The request has no body')
}

/** GET /migration/import/:job_id — status, counts and the first rejects. */
export async function importJobStatus(session: Session, jobId: string) {
	const job = await findJob(sql, session.communityId, jobId)
	if (!job) throw notFound('Import job')
	return {
		job_id: job.id,
		status: job.status === 'receiving' ? 'queued' : job.status,
		counts: job.counts,
		rejects: job.rejects,
		reject_count: job.reject_count,
		bytes: job.bytes,
		attempts: job.attempts,
		...(job.error ? { error: job.error } : {}),
		created_at: job.created_at,
		updated_at: job.updated_at,
	}
}
