// The hourly prune deletes fan-out jobs finished over a day ago and nothing else:
// recent, pending and parked jobs stay.
import { expect, test } from 'bun:test'
import { fanOutPruneJob } from '../../src/jobs/fanout-prune'
import { newCommunity } from '../support/community'
import { sql } from '../support/db'

test('fan-out prune removes only jobs finished more than a day ago', async () => {
	const community = await newCommunity('fanout-prune')
	const job = (finishedHoursAgo: number | null, parked = false) => sql`
		insert into fanout_jobs (community_id, kind, post_id, author_id, score, done_at, lease_until)
		values (${community.communityId}, 'add', 'p', 0, 0,
			${finishedHoursAgo === null ? null : sql`now() - make_interval(hours => ${finishedHoursAgo})`},
			${parked ? sql`'infinity'::timestamptz` : null})
		returning id::text`
	const [[old], [recent], [pending], [parked]] = await Promise.all([
		job(25),
		job(23),
		job(null),
		job(null, true),
	])
	await fanOutPruneJob.run()
	const left =
		await sql`select id::text from fanout_jobs where community_id = ${community.communityId}`
	expect(left.map((r) => r.id).sort()).toEqual([recent.id, pending.id, parked.id].sort())
	expect(left.map((r) => r.id)).not.toContain(old.id)
})
