// Recomputes personalised feeds on demand.
//   bun run scripts/recompute.ts --user <uuid|id>     one user
//   bun run scripts/recompute.ts --community <id>     every user of a community
//   bun run scripts/recompute.ts --all                every user
import { parseArgs } from 'node:util'
import { acrossCommunities, sql } from '../src/lib/db'
import { redis } from '../src/lib/redis'
import { recomputePersonalised } from '../src/timelines/personalised'
import { findUserRef } from '../src/timelines/personalised-repo'
import { recomputeCommunity } from '../src/timelines/recompute'

const usage = 'usage: bun run scripts/recompute.ts --user <uuid|id> | --community <id> | --all'
const { values } = parseArgs({
	options: { user: { type: 'string' }, community: { type: 'string' }, all: { type: 'boolean' } },
})

async function run(): Promise<Record<string, unknown>> {
	if (values.user) {
		const user = await acrossCommunities((tx) => findUserRef(tx, values.user as string))
		if (!user) throw new Error(`no user ${values.user}`)
		const posts = await recomputePersonalised(user.user_id, user.community_id)
		return { user_id: user.user_id, community_id: user.community_id, posts }
	}
	if (values.community) {
		const id = Number(values.community)
		if (!Number.isInteger(id)) throw new Error(usage)
		return { community_id: id, users: await recomputeCommunity(id) }
	}
	if (values.all) return { users: await recomputeCommunity(null) }
	throw new Error(usage)
}

const started = performance.now()
try {
	console.log(JSON.stringify({ ...(await run()), ms: Math.round(performance.now() - started) }))
} catch (error) {
	console.error((error as Error).message)
	process.exitCode = 2
} finally {
	await sql.end()
	redis.disconnect()
}
