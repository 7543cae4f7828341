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
