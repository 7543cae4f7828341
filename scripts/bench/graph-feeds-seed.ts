// The graph feeds benchmark's community (bench:graph-feeds and its profiling aid): the
// feeds bench's seed with connections on, the viewer following 300 members, Redis
// rebuilt, and a token for the viewer. Imported after the caller set DATABASE_URL and
// REDIS_URL (the bench's own database and Redis db).
import { ensureDatabase, sql } from '../../src/lib/db'
import { keys } from '../../src/lib/keys'
import { migrate } from '../../src/lib/migrate'
import { redis } from '../../src/lib/redis'
import { signAccessToken } from '../../src/lib/tokens'
import { insertConnections } from '../../src/modules/connections/repo'
import { rebuildCommunity } from '../../src/timelines/rebuild'
import { seed } from './feeds-seed'

export const size = {
	users: 5000,
	topics: 50,
	posts: Number(process.env.BENCH_POSTS ?? 50_000),
	likes: 200_000,
	comments: 100_000,
}

export async function seedGraphBench(log: (msg: string) => void) {
	await ensureDatabase(process.env.DATABASE_URL as string)
	await migrate()
	const bench = await seed(size, log)
	const c = bench.communityId
	await sql`
		insert into community_settings (community_id, setting_type, enabled, updated_at) values (${c}, 'user_connection', true, ${Date.now()})
		on conflict (community_id, setting_type) do update set enabled = true`
	const followed = await sql<{ id: number }[]>`
		select id::float8 as id from users
		where community_id = ${c} and id <> ${bench.viewerId} order by hashtext(uuid::text) limit 300`
	await insertConnections(
		sql,
		c,
		followed.map((u): [number, number] => [bench.viewerId, u.id]),
		'one_way',
		0,
	)
	await rebuildCommunity(c)
	await redis.del(keys.settings(c), keys.connLive(bench.viewerId), keys.persMeta(bench.viewerId))
	const token = await signAccessToken(
		{ sub: bench.viewerUuid, uid: bench.viewerId, cid: c, role: 'member' },
		120,
	)
	return { bench, token }
}
