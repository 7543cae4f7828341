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
	/** the latest ACTION_BY_SHOWN actors, latest last */
	actor_ids: number[]
	/** how many actors the group has */
	actor_count: number
	custom_text: string | null
	is_read: boolean
	created_at: number
	updated_at: number
	/** bumped by every change; the Redis copy keeps the highest (store.ts) */
	version: number
}

/** The columns of an ActivityRow (the actors cut to the 25 shown; a group may have thousands). */
const columns = (t = 'activities') =>
	`${t}.id, ${t}.community_id, ${t}.recipient_id, ${t}.action, ${t}.entity_type, ${t}.entity_id,
	${t}.post_id, ${t}.comment_id, ${t}.actor_ids[greatest(cardinality(${t}.actor_ids) - 24, 1):] as actor_ids,
	cardinality(${t}.actor_ids) as actor_count, ${t}.custom_text, ${t}.is_read,
	${t}.created_at::float8 as created_at, ${t}.updated_at::float8 as updated_at, ${t}.version::float8 as version`

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

export interface TouchedActivity extends ActivityRow {
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
			comment_id = excluded.comment_id, updated_at = excluded.updated_at,
			version = activities.version + 1
		returning ${db.unsafe(columns())}
		)
		select activities.*, coalesce(u.user_unique_id, u.uuid::text) as customer_id
		from touched activities join users u on u.id = activities.recipient_id`
}

export interface Removed {
	id: string
	recipient_id: number
}

/**
 * Takes the actor out of every group of (action, group_key); groups left empty are
 * deleted. Returns the groups changed and those deleted.
 */
export async function removeActor(db: Db, action: ActionCode, groupKey: string, actorId: number) {
	const changed = await db<ActivityRow[]>`
		update activities set actor_ids = array_remove(actor_ids, ${actorId}), version = version + 1
		where action = ${action} and group_key = ${groupKey} and ${actorId} = any(actor_ids)
		returning ${db.unsafe(columns())}`
	const empty = changed.filter((c) => c.actor_count === 0)
	if (empty.length > 0)
		await db`delete from activities where id in ${db(empty.map((c) => c.id))} and cardinality(actor_ids) = 0`
	return { changed: changed.filter((c) => c.actor_count > 0), deleted: empty as Removed[] }
}

export function deleteActivitiesOfPost(db: Db, postId: string) {
	return db<Removed[]>`delete from activities where post_id = ${postId} returning id, recipient_id`
}

export function deleteActivitiesOfComment(db: Db, commentId: string) {
	return db<Removed[]>`
		delete from activities where comment_id = ${commentId} or (entity_type = 1 and entity_id = ${commentId})
		returning id, recipient_id`
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
			select ${db.unsafe(columns())} from activities where recipient_id = ${recipientId}
			order by updated_at desc, id desc limit ${limit} offset ${offset}`,
		db<
			{ n: number }[]
		>`select count(*)::int as n from activities where recipient_id = ${recipientId}`,
	])
	return { rows, total: count.n }
}

/** What the Redis copy is built from: the newest `limit` groups and every unread one's version. */
export async function activitySnapshot(db: Db, recipientId: number, limit: number) {
	const [rows, unread] = await Promise.all([
		db<ActivityRow[]>`
			select ${db.unsafe(columns())} from activities where recipient_id = ${recipientId}
			order by updated_at desc, id desc limit ${limit}`,
		db<{ id: string; version: number }[]>`
			select id, version::float8 as version from activities
			where recipient_id = ${recipientId} and not is_read`,
	])
	return { rows, unread }
}

export async function unreadCount(db: Db, recipientId: number): Promise<number> {
	const [row] = await db<{ n: number }[]>`
		select count(*)::int as n from activities where recipient_id = ${recipientId} and not is_read`
	return row.n
}

export interface ReadMark {
	id: string
	recipient_id: number
	version: number
}

/** Marks the recipient's activity read; empty when it is not theirs (read or not). */
export function markRead(db: Db, recipientId: number, id: string) {
	return db<ReadMark[]>`
		update activities set is_read = true, version = version + case when is_read then 0 else 1 end
		where id = ${id} and recipient_id = ${recipientId}
		returning id, recipient_id, version::float8 as version`
}

export function markAllRead(db: Db, recipientId: number) {
	return db<ReadMark[]>`
		update activities set is_read = true, version = version + 1
		where recipient_id = ${recipientId} and not is_read
		returning id, recipient_id, version::float8 as version`
}
