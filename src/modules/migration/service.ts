// Migration rules: the bulk import run from a stream (the CLI) or as a background job
// (POST /migration/import), and the export. No Elysia here; scripts and the controller
// both call these functions.
import type { Readable } from 'node:stream'
import { sql } from '../../lib/db'
import { AppError } from '../../lib/errors'
import { linesOf } from './import/lines'
import { progressDisplay } from './import/progress'
import { fileRejects } from './import/rejects'
import { runImport, type Summary } from './import/run'
import {
	exportComments,
	exportConnections,
	exportLikes,
	exportPosts,
	exportTopics,
	exportUsers,
} from './repo/export'
import { communityExists } from './repo/jobs'

export interface StreamImport {
	communityId: number
	input: NodeJS.ReadableStream
	totalBytes: number | null
	rejectsPath: string
	dryRun: boolean
	tty: boolean
}

/** The CLI's import: a file or stdin, rejects to a file, progress on stderr. */
export async function importFromStream(options: StreamImport): Promise<Summary> {
	if (!(await communityExists(sql, options.communityId)))
		throw new AppError(404, `community ${options.communityId} not found`)
	const rejects = fileRejects(options.rejectsPath)
	const progress = progressDisplay(options.totalBytes, options.tty)
	try {
		return await runImport({
			communityId: options.communityId,
			lines: linesOf(options.input as Readable, progress.bytes),
			rejects,
			dryRun: options.dryRun,
			onProgress: progress.records,
			onPhase: progress.phase,
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
