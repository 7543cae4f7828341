// SQL of pending posts (posts.held = 'pending'): holding a new post for approval, with
// its handle in the review queue (a `reports` row of entity_type 'pending_post', filed by
// its author, which modules/reports lists and closes), and letting it go or refusing it.
import type { Db } from '../../lib/db'
import { deletedPostDeltas } from './repo'

/** Marks the new post pending and files its queue handle. */
export async function holdPending(
	db: Db,
	communityId: number,
	postId: string,
	authorId: number,
	now: number,
): Promise<void> {
	await db`update posts set held = 'pending' where community_id = ${communityId} and id = ${postId}`
	await db`
		insert into reports (community_id, entity_type, entity_id, accused_user_id, reporter_user_id, created_at)
		values (${communityId}, 'pending_post', ${postId}, ${authorId}, ${authorId}, ${now})`
}

/** Lets the pending post go, dated now (it is created when approved); false when it is not pending. */
export async function releasePending(
	db: Db,
	communityId: number,
	postId: string,
	now: number,
): Promise<boolean> {
	const rows = await db`
		update posts set held = null, created_at = ${now}, updated_at = ${now}
		where community_id = ${communityId} and id = ${postId} and held = 'pending' and not is_deleted
		returning id`
	return rows.length > 0
}

/** Deletes the pending post (refused); its author's id, or null when it is not pending. */
export async function refusePending(
	db: Db,
	communityId: number,
	postId: string,
	by: number,
	now: number,
): Promise<number | null> {
	const [row] = await db<{ user_id: number }[]>`
		with deleted as (
			update posts set is_deleted = true, deleted_by = ${by}, delete_reason = 'Not approved',
				updated_at = ${now}
			where community_id = ${communityId} and id = ${postId} and held = 'pending' and not is_deleted
			returning id, user_id),
		${deletedPostDeltas(db, communityId)}
		select user_id::float8 as user_id from deleted`
	return row?.user_id ?? null
}
