// Operator command: a community as NDJSON in the import format (DESIGN §14), streamed.
//   bun run scripts/export.ts --community ID > FILE.ndjson
// Importing the file into an empty community reproduces its posts, topics, comments,
// likes, connections and counts. Exit 2 on a usage or connection error.
import { parseArgs } from 'node:util'
import { sql } from '../src/lib/db'
import { exportCommunity } from '../src/modules/migration/service'

const usage = 'usage: bun run scripts/export.ts --community ID > FILE.ndjson'

function communityArg(): number {
	try {
		const { values } = parseArgs({ options: { community: { type: 'string' } } })
		const id = Number(values.community)
		if (Number.isInteger(id) && id > 0) return id
	} catch {}
	console.error(usage)
	process.exit(2)
}

/** Writes to stdout, waiting for it to drain (a slow pipe must not fill memory). */
function write(chunk: string): Promise<void> | undefined {
	if (process.stdout.write(chunk)) return
	return new Promise((resolve) => process.stdout.once('drain', resolve))
}

let exitCode = 0
try {
	const records = await exportCommunity(communityArg(), write)
	console.error(JSON.stringify({ exported: records }))
} catch (error) {
	console.error(`export failed: ${(error as Error).message}`)
	exitCode = 2
} finally {
	await sql.end({ timeout: 5 })
}
process.exit(exitCode)
