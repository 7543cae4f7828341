// DATABASE_REPLICA_URL: the suite's "replica" is the test database through a role whose
// transactions are read-only (test/support/preload.ts), so any write sent there fails —
// and every test passing says none is. Here: the replica really refuses writes, and a
// feed rebuild and the dashboard overview really read through it.
import { expect, test } from 'bun:test'
import { config } from '../../src/config'
import { replica, sql } from '../../src/lib/db'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { rebuildCommunity } from '../../src/timelines/rebuild'
import { newCommunity, newUser } from '../support/community'
import { feed, newPost } from '../support/content'
import { api } from '../support/http'

/** The last statement of each open replica connection (pg_stat_activity keeps one per backend). */
const replicaStatements = async () => {
	const rows = await sql`
		select query from pg_stat_activity
		where usename = ${new URL(config.DATABASE_REPLICA_URL as string).username}
			and datname = current_database()`
	return rows.map((r) => r.query as string).join('\n')
}

test('the replica is a separate, read-only connection pool', async () => {
	expect(replica).not.toBe(sql)
	await expect(replica`create table replica_write_probe (id int)`).rejects.toThrow(/read-only/)
	const [row] = await replica`select current_user as who`
	expect(row.who).toBe('plaza_test_replica')
})

test('a feed rebuild and the dashboard overview read through the replica', async () => {
	const community = await newCommunity('replica')
	const cm = await newUser(community, { role: 'cm' })
	const postId = await newPost(cm, { text: 'rebuilt from the replica' })
	// Redis lost the community: the next read rebuilds it from Postgres (the replica).
	await redis.del(keys.feedBuilt(community.communityId), keys.universalFeed(community.communityId))
	expect((await feed(cm)).posts.map((p: { _id: string }) => p._id)).toContain(postId)
	// The rebuild reads in a transaction (its last statement on the replica is its commit),
	// so what shows it reads there is that it needs the replica role's rights.
	await sql`revoke select on post_topics from plaza_test_replica`
	try {
		await expect(rebuildCommunity(community.communityId)).rejects.toThrow(/permission denied/)
	} finally {
		await sql`grant select on post_topics to plaza_test_replica`
	}
	expect(await rebuildCommunity(community.communityId)).toBe(1)

	const overview = await api('GET', '/community/overview', { token: cm.token })
	expect(overview.status).toBe(200)
	expect(overview.body.data.counts.posts).toBeGreaterThanOrEqual(1)
	expect(await replicaStatements()).toMatch(/as cms|webhook|hour/)
})
