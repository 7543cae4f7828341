// Rebuilds the Redis feeds and caches from Postgres, and the marks of revoked logins
// (so access tokens of a logged-out session stay refused after Redis lost them).
//   bun run scripts/rebuild-redis.ts              every community
//   bun run scripts/rebuild-redis.ts --community 7
import { sql } from '../src/lib/db'
import { redis } from '../src/lib/redis'
import { restoreRevocations } from '../src/modules/auth/revocation'
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
if (only === null)
	console.log(JSON.stringify({ revoked_families_restored: await restoreRevocations() }))
await sql.end()
redis.disconnect()
