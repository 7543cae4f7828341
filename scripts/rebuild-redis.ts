// Rebuilds the Redis feeds and caches from Postgres.
//   bun run scripts/rebuild-redis.ts              every community
//   bun run scripts/rebuild-redis.ts --community 7
import { sql } from '../src/lib/db'
import { redis } from '../src/lib/redis'
import { rebuildCommunity } from '../src/timelines/rebuild'
import { communityIds } from '../src/timelines/repo'

const at = process.argv.indexOf('--community')
const only = at > 0 ? Number(process.argv[at + 1]) : null
if (only !== null && !Number.isInteger(only)) {
	console.error('usage: bun run scripts/rebuild-redis.ts [--community <id>]')
	process.exit(2)
}
const targets = only !== null ? [only] : await communityIds(sql)
for (const communityId of targets) {
	const started = performance.now()
	const posts = await rebuildCommunity(communityId)
	console.log(
		JSON.stringify({
			community_id: communityId,
			posts,
			ms: Math.round(performance.now() - started),
		}),
	)
}
await sql.end()
redis.disconnect()
