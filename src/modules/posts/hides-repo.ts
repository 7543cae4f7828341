// SQL of hidden_posts: the posts a member hid for themself (PUT /feed/post/:id/hide) or
// reported. The visibility rule reads the table in its SQL form (lib/visibility.ts) and
// the feed engine through the viewer's exclusions set (timelines/viewer-state.ts).
import type { Db } from '../../lib/db'

/** Hides the post for the user; true when it was not hidden before. */
export async function hidePostFor(
	db: Db,
	communityId: number,
	userId: number,
	postId: string,
	now: number,
): Promise<boolean> {
	const rows = await db`
		insert into hidden_posts (community_id, user_id, post_id, created_at)
		values (${communityId}, ${userId}, ${postId}, ${now})
		on conflict do nothing returning post_id`
	return rows.length > 0
}

export async function isHiddenFor(
	db: Db,
	communityId: number,
	userId: number,
	postId: string,
): Promise<boolean> {
	const [row] = await db`
		select 1 from hidden_posts
		where community_id = ${communityId} and user_id = ${userId} and post_id = ${postId}`
	return row !== undefined
}
