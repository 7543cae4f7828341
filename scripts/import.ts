// Operator command: bulk import of a community from NDJSON (DESIGN §14).
//   bun run scripts/import.ts --community ID FILE.ndjson    (- reads stdin)
//   bun run scripts/import.ts --community ID --dry-run FILE.ndjson
//   --timings: each part's wall time to stderr (read, each step, refresh), for profiling
// Rejects go to FILE.rejects.ndjson (stdin.rejects.ndjson for -), progress to stderr,
// the summary (one JSON line) to stdout. Exit 0 when anything was imported or matched,
// 1 when every record was rejected, 2 on a usage or connection error.
import { createReadStream, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from '../src/lib/db'
import { redis } from '../src/lib/redis'
import { importFromStream } from '../src/modules/migration/service'

const usage =
	'usage: bun run scripts/import.ts --community ID [--dry-run] [--timings] FILE.ndjson|-'

function fail(message: string): never {
	console.error(message)
	process.exit(2)
}

function readArgs() {
	try {
		const { values, positionals } = parseArgs({
			options: {
				community: { type: 'string' },
				'dry-run': { type: 'boolean', default: false },
				timings: { type: 'boolean', default: false },
			},
			allowPositionals: true,
		})
		const communityId = Number(values.community)
		if (!Number.isInteger(communityId) || communityId <= 0 || positionals.length !== 1) fail(usage)
		return {
			communityId,
			file: positionals[0] as string,
			dryRun: values['dry-run'] === true,
			timings: values.timings === true,
		}
	} catch (error) {
		fail(`${(error as Error).message}\n${usage}`)
	}
}

/** `old.ndjson` → `old.rejects.ndjson` beside it; stdin → `stdin.rejects.ndjson` here. */
function rejectsPathOf(file: string): string {
	if (file === '-') return 'stdin.rejects.ndjson'
	const name = basename(file).replace(/\.(nd)?jsonl?$/i, '')
	return join(dirname(file), `${name}.rejects.ndjson`)
}

const args = readArgs()
let input: NodeJS.ReadableStream
let totalBytes: number | null = null
if (args.file === '-') input = process.stdin
else {
	try {
		totalBytes = statSync(args.file).size
	} catch {
		fail(`cannot read ${args.file}`)
	}
	input = createReadStream(args.file)
}

let exitCode = 2
try {
	const summary = await importFromStream({
		communityId: args.communityId,
		input,
		reopen: args.file === '-' ? undefined : () => createReadStream(args.file),
		totalBytes,
		rejectsPath: rejectsPathOf(args.file),
		dryRun: args.dryRun,
		timings: args.timings,
		tty: process.stderr.isTTY === true,
	})
	process.stdout.write(`${JSON.stringify(summary)}\n`)
	const kept = Object.values(summary.imported).concat(Object.values(summary.matched))
	exitCode = summary.rejects > 0 && kept.every((n) => n === 0) ? 1 : 0
	if (exitCode === 1) console.error(`every record was rejected: see ${rejectsPathOf(args.file)}`)
} catch (error) {
	console.error(`import failed: ${(error as Error).message}`)
} finally {
	await sql.end({ timeout: 5 })
	redis.disconnect()
}
process.exit(exitCode)
