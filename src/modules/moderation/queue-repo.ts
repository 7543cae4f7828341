// SQL of the review queue's counts (the `community` live scope).
import type { Db } from '../../lib/db'

/** Open reports and pending posts in the review queue, counted (the `community` live scope). */
export async function queueCounts(
	db: Db,
	communityId: number,
): Promise<{ open_reports: number; pending_posts: number }> {
	const [row] = await db<{ open_reports: number; pending_posts: number }[]>`
		select count(*) filter (where entity_type <> 'pending_post')::int as open_reports,
			count(*) filter (where entity_type = 'pending_post')::int as pending_posts
		from reports where community_id = ${communityId} and not is_closed`
	return row ?? { open_reports: 0, pending_posts: 0 }
}
