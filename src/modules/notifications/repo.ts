// SQL of the notification feed. Grouping is one upsert: a new actor joins the unread
// group of (recipient, action, group_key) or starts one, atomically under concurrent
// writers (the partial unique index on unread groups is the arbiter).
import type { Db } from '../../lib/db'
import type { ActionCode, EntityCode } from './model'

export interface ActivityRow {
	id: string
	community_id: number
	recipient_id: number
	action: ActionCode
	entity_type: EntityCode
	entity_id: string
	post_id: string | null
	comment_id: string | null
	actor_ids: number[]
	custom_text: string | null
	is_read: boolean
	created_at: number
	updated_at: number
}

const columns = `id, community_id, recipient_id, action, entity_type, entity_id, post_id, comment_id,
	actor_ids, custom_text, is_read, created_at::float8 as created_at, updated_at::float8 as updated_at`

export interface NewActivities {
	communityId: number
	action: ActionCode
	entityType: EntityCode
	entityId: string
	postId: string | null
	commentId: string | null
	actorId: number
	recipientIds: number[]
	/** custom activities stand alone; every other action groups by entity */
	grouped: boolean
	customText?: string
	now: number
}

export interface TouchedActivity {
	id: string
	recipient_id: number
	/** the recipient's customer id (user_unique_id; the service uuid for an owner, who has none) */
	customer_id: string
}

/**
 * Adds the actor to each recipient's unread group (or starts one), leaving out the
 * actor and anyone in a block with the actor either way. Returns the groups touched.
 */
export function upsertActivities(db: Db, a: NewActivities) {
	return db<TouchedActivity[]>`
		with eligible as (
			select plaza_new_id() as id, r as recipient_id
			from unnest(${db.array(a.recipientIds)}::int[]) r
			where r <> ${a.actorId} and not exists (
				select 1 from blocks b
				where (b.blocker_id = r and b.blocked_id = ${a.actorId})
					or (b.blocker_id = ${a.actorId} and b.blocked_id = r))
		), touched as (
			insert into activities (id, community_id, recipient_id, action, entity_type, entity_id, group_key,
			post_id, comment_id, actor_ids, custom_text, created_at, updated_at)
		select e.id, ${a.communityId}, e.recipient_id, ${a.action}, ${a.entityType}, ${a.entityId},
			case when ${a.grouped} then ${a.entityId} else e.id end,
			${a.postId}, ${a.commentId}, array[${a.actorId}]::int[], ${a.customText ?? null}, ${a.now}, ${a.now}
		from eligible e
		on conflict (recipient_id, action, group_key) where not is_read do update set
			actor_ids = array_append(array_remove(activities.actor_ids, ${a.actorId}), ${a.actorId}),
			comment_id = excluded.comment_id, updated_at = excluded.updated_at
		returning id, recipient_id
		)
		select t.id, t.recipient_id, coalesce(u.user_unique_id, u.uuid::text) as customer_id
		from touched t join users u on u.id = t.recipient_id`
}

/** Takes the actor out of every group of (action, group_key); groups left empty are deleted. */
export async function removeActor(db: Db, action: ActionCode, groupKey: string, actorId: number) {
	const changed = await db<{ id: string; recipient_id: number }[]>`
		update activities set actor_ids = array_remove(actor_ids, ${actorId})
		where action = ${action} and group_key = ${groupKey} and ${actorId} = any(actor_ids)
		returning id, recipient_id`
	if (changed.length > 0)
		await db`delete from activities where id in ${db(changed.map((c) => c.id))} and cardinality(actor_ids) = 0`
	return changed.map((c) => c.recipient_id)
}

export async function deleteActivitiesOfPost(db: Db, postId: string) {
	await db`delete from activities where post_id = ${postId}`
}

export async function deleteActivitiesOfComment(db: Db, commentId: string) {
	await db`
		delete from activities where comment_id = ${commentId} or (entity_type = 1 and entity_id = ${commentId})`
}

/** Users who commented on the post (live comments), except those given. */
export async function commentersOf(db: Db, postId: string, except: number[]): Promise<number[]> {
	const rows = await db<{ user_id: number }[]>`
		select distinct user_id from comments
		where post_id = ${postId} and not is_deleted and user_id <> all(${db.array(except)}::int[])`
	return rows.map((r) => r.user_id)
}

export async function activityPage(db: Db, recipientId: number, limit: number, offset: number) {
	const [rows, [count]] = await Promise.all([
		db<ActivityRow[]>`
			select ${db.unsafe(columns)} from activities where recipient_id = ${recipientId}
			order by updated_at desc, id desc limit ${limit} offset ${offset}`,
		db<
			{ n: number }[]
		>`select count(*)::int as n from activities where recipient_id = ${recipientId}`,
	])
	return { rows, total: count.n }
}

export async function unreadCount(db: Db, recipientId: number): Promise<number> {
	const [row] = await db<{ n: number }[]>`
		select count(*)::int as n from activities where recipient_id = ${recipientId} and not is_read`
	return row.n
}

/** True when the activity is the recipient's (read or not). */
export async function markRead(db: Db, recipientId: number, id: string): Promise<boolean> {
	const rows = await db`
		update activities set is_read = true where id = ${id} and recipient_id = ${recipientId} returning 1`
	return rows.length > 0
}

export async function markAllRead(db: Db, recipientId: number): Promise<number> {
	const rows = await db`
		update activities set is_read = true where recipient_id = ${recipientId} and not is_read returning 1`
	return rows.length
}
