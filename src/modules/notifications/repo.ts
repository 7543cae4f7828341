// SQL of the notification feed. Grouping is one upsert: a new actor joins the unread
// group of (recipient, action, group_key) or starts one, atomically under concurrent
// writers (the partial unique index on unread groups is the arbiter).
import type { PendingQuery, Row } from 'postgres'
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

/**
 * The columns of an ActivityRow (the actors cut to the 25 shown; a group may have
 * thousands). User ids are bigint, read as float8: JS numbers, exact to 2^53.
 */
const columns = (t = 'activities') =>
	`${t}.id, ${t}.community_id, ${t}.recipient_id::float8 as recipient_id, ${t}.action, ${t}.entity_type,
	${t}.entity_id, ${t}.post_id, ${t}.comment_id,
	${t}.actor_ids[greatest(cardinality(${t}.actor_ids) - 24, 1):]::float8[] as actor_ids,
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
			from unnest(${db.array(a.recipientIds)}::int8[]) r
			where r <> ${a.actorId} and not exists (
				select 1 from blocks b
				where b.community_id = ${a.communityId} and ((b.blocker_id = r and b.blocked_id = ${a.actorId})
					or (b.blocker_id = ${a.actorId} and b.blocked_id = r)))
		), touched as (
			insert into activities (id, community_id, recipient_id, action, entity_type, entity_id, group_key,
			post_id, comment_id, actor_ids, custom_text, created_at, updated_at)
		select e.id, ${a.communityId}, e.recipient_id, ${a.action}, ${a.entityType}, ${a.entityId},
			case when ${a.grouped} then ${a.entityId} else e.id end,
			${a.postId}, ${a.commentId}, array[${a.actorId}]::int8[], ${a.customText ?? null}, ${a.now}, ${a.now}
		from eligible e
		on conflict (community_id, recipient_id, action, group_key) where not is_read do update set
			actor_ids = array_append(array_remove(activities.actor_ids, ${a.actorId}), ${a.actorId}),
			comment_id = excluded.comment_id, updated_at = excluded.updated_at,
			version = activities.version + 1
		returning activities.*
		)
		select ${db.unsafe(columns())}, coalesce(u.user_unique_id, u.uuid::text) as customer_id
		from touched activities join users u on u.community_id = ${a.communityId} and u.id = activities.recipient_id`
}

/** One group's new actors, in the order they acted (a batch of likes of one post). */
export interface GroupActors {
	entityId: string
	postId: string | null
	recipientId: number
	actorIds: number[]
	/** per actor (same order), what its follow-ups write when it joins: `joined.x` */
	data?: unknown[]
}

/**
 * What each actor that joins a group causes, written by the same statement: `ctes` read
 * `joined` — one row per actor that joined, with its input (c: the community, e: entity,
 * p: post, r: recipient, a: actor, x: its data) and `activity_id` — and each ends in a
 * one-row CTE named in `read`, which the statement reads so that Postgres runs it.
 */
export interface JoinFollowUps {
	ctes: PendingQuery<Row[]>
	read: string[]
}

/**
 * upsertActivities for many groups of one grouped action of one community in ONE statement (one row per
 * (recipient, entity); several actors each): every actor joins its recipient's unread
 * group, in order, as one upsert per actor would leave it, leaving out the recipient and
 * actors in a block with them. Returns the groups touched with the actors that joined.
 * `followUps` (the pushes and webhook events of a batch of likes) go in the same statement.
 */
export function upsertGroupActivities(
	db: Db,
	a: {
		communityId: number
		action: ActionCode
		entityType: EntityCode
		groups: GroupActors[]
		now: number
	},
	followUps?: JoinFollowUps,
) {
	const input = a.groups
		.flatMap((g) =>
			g.actorIds.map((actor, i) => ({
				c: a.communityId,
				e: g.entityId,
				p: g.postId,
				r: g.recipientId,
				a: actor,
				x: g.data?.[i] ?? null,
			})),
		)
		.map((row, n) => ({ ...row, n }))
	return db<(TouchedActivity & { joined: number[] })[]>`
		with input as (
			select * from jsonb_to_recordset(${db.json(input as never)}) as i(c int, e text, p text, r int8, a int8, n int, x jsonb)
		), eligible_actors as (
			select * from input i
			where a <> r and not exists (
				select 1 from blocks b
				where b.community_id = ${a.communityId}
					and ((b.blocker_id = i.r and b.blocked_id = i.a) or (b.blocker_id = i.a and b.blocked_id = i.r)))
		), eligible as (
			select c, e, p, r, array_agg(a order by n) as actors from eligible_actors group by c, e, p, r
		), touched as (
			insert into activities (id, community_id, recipient_id, action, entity_type, entity_id, group_key,
				post_id, comment_id, actor_ids, custom_text, created_at, updated_at)
			select plaza_new_id(), ${a.communityId}::int, r, ${a.action}, ${a.entityType}, e, e, p, null, actors, null, ${a.now}, ${a.now}
			from eligible
			on conflict (community_id, recipient_id, action, group_key) where not is_read do update set
				actor_ids = array(select x from unnest(activities.actor_ids) with ordinality u(x, n)
					where x <> all(excluded.actor_ids) order by n) || excluded.actor_ids,
				comment_id = excluded.comment_id, updated_at = excluded.updated_at,
				version = activities.version + 1
			returning activities.*
		), joined as (
			select i.*, t.id as activity_id from eligible_actors i
			join touched t on t.recipient_id = i.r and t.entity_id = i.e
		)${followUps ? db`, ${followUps.ctes}` : db``}
		select ${db.unsafe(columns())}, coalesce(u.user_unique_id, u.uuid::text) as customer_id,
			e.actors::float8[] as joined
		from touched activities join users u on u.community_id = ${a.communityId} and u.id = activities.recipient_id
		join eligible e on e.r = activities.recipient_id and e.e = activities.entity_id
		${followUps ? db`, ${db.unsafe(followUps.read.join(', '))}` : db``}`
}

export interface Removed {
	id: string
	community_id: number
	recipient_id: number
}

/**
 * Takes the actor out of every group of (action, group_key); groups left empty are
 * deleted. Returns the groups changed and those deleted.
 */
export async function removeActor(
	db: Db,
	communityId: number,
	action: ActionCode,
	groupKey: string,
	actorId: number,
) {
	const changed = await db<ActivityRow[]>`
		update activities set actor_ids = array_remove(actor_ids, ${actorId}), version = version + 1
		where community_id = ${communityId} and action = ${action} and group_key = ${groupKey}
			and ${actorId} = any(actor_ids)
		returning ${db.unsafe(columns())}`
	const empty = changed.filter((c) => c.actor_count === 0)
	if (empty.length > 0)
		await db`
			delete from activities
			where community_id = ${communityId} and id in ${db(empty.map((c) => c.id))} and cardinality(actor_ids) = 0`
	return { changed: changed.filter((c) => c.actor_count > 0), deleted: empty as Removed[] }
}

/**
 * removeActor for many (post, actor) pairs of one action on posts in one statement: each
 * actor leaves every group of the post. Returns the groups changed, emptied ones included
 * (actor_count 0: the caller deletes them, deleteEmptyPostGroups).
 */
export function removePostActors(
	db: Db,
	communityId: number,
	action: ActionCode,
	pairs: { postId: string; actorId: number }[],
) {
	// A post's group is keyed by the post (group_key = post_id): found through
	// activities_post. The posts are also given as a list: joined to `gone` alone, the
	// planner scanned all of activities for every batch (4 ms at 1,000 rows, 0.3 with it).
	const postIds = [...new Set(pairs.map((p) => p.postId))]
	return db<ActivityRow[]>`
		with gone as (
			select k, array_agg(a) as actors
			from unnest(${pairs.map((p) => p.postId)}::text[], ${pairs.map((p) => p.actorId)}::int8[]) as i(k, a)
			group by k
		)
		update activities set actor_ids = array(select x from unnest(activities.actor_ids) with ordinality u(x, n)
			where x <> all(gone.actors) order by n), version = version + 1
		from gone
		where community_id = ${communityId} and post_id = any(${postIds}::text[]) and post_id = gone.k and action = ${action}
			and group_key = gone.k and actor_ids && gone.actors
		returning ${db.unsafe(columns())}`
}

/**
 * Deletes the groups of posts' likes (group_key: the post) left with no actor: sent right
 * behind removePostActors, it needs not wait for that statement's answer. Returns what it deleted.
 */
export function deleteEmptyPostGroups(
	db: Db,
	communityId: number,
	action: ActionCode,
	postIds: string[],
) {
	return db<Removed[]>`
		delete from activities
		where community_id = ${communityId} and post_id = any(${postIds}::text[]) and action = ${action}
			and group_key = post_id
			and cardinality(actor_ids) = 0
		returning id, community_id, recipient_id::float8 as recipient_id`
}

export function deleteActivitiesOfPost(db: Db, communityId: number, postId: string) {
	return db<Removed[]>`
		delete from activities where community_id = ${communityId} and post_id = ${postId}
		returning id, community_id, recipient_id::float8 as recipient_id`
}

export function deleteActivitiesOfComment(db: Db, communityId: number, commentId: string) {
	return db<Removed[]>`
		delete from activities
		where community_id = ${communityId}
			and (comment_id = ${commentId} or (entity_type = 1 and entity_id = ${commentId}))
		returning id, community_id, recipient_id::float8 as recipient_id`
}

/** Users who commented on the post (live comments), except those given. */
export async function commentersOf(
	db: Db,
	communityId: number,
	postId: string,
	except: number[],
): Promise<number[]> {
	const rows = await db<{ user_id: number }[]>`
		select distinct user_id::float8 as user_id from comments
		where community_id = ${communityId} and post_id = ${postId} and not is_deleted
			and user_id <> all(${db.array(except)}::int8[])`
	return rows.map((r) => r.user_id)
}

export async function activityPage(
	db: Db,
	communityId: number,
	recipientId: number,
	limit: number,
	offset: number,
) {
	const [rows, [count]] = await Promise.all([
		db<ActivityRow[]>`
			select ${db.unsafe(columns())} from activities
			where community_id = ${communityId} and recipient_id = ${recipientId}
			order by updated_at desc, id desc limit ${limit} offset ${offset}`,
		db<{ n: number }[]>`
			select count(*)::int as n from activities
			where community_id = ${communityId} and recipient_id = ${recipientId}`,
	])
	return { rows, total: count.n }
}

/** What the Redis copy is built from: the newest `limit` groups and every unread one's version. */
export async function activitySnapshot(
	db: Db,
	communityId: number,
	recipientId: number,
	limit: number,
) {
	const [rows, unread] = await Promise.all([
		db<ActivityRow[]>`
			select ${db.unsafe(columns())} from activities
			where community_id = ${communityId} and recipient_id = ${recipientId}
			order by updated_at desc, id desc limit ${limit}`,
		db<{ id: string; community_id: number; version: number }[]>`
			select id, community_id, version::float8 as version from activities
			where community_id = ${communityId} and recipient_id = ${recipientId} and not is_read`,
	])
	return { rows, unread }
}

export async function unreadCount(
	db: Db,
	communityId: number,
	recipientId: number,
): Promise<number> {
	const [row] = await db<{ n: number }[]>`
		select count(*)::int as n from activities
		where community_id = ${communityId} and recipient_id = ${recipientId} and not is_read`
	return row.n
}

export interface ReadMark {
	id: string
	community_id: number
	recipient_id: number
	version: number
}

/** Marks the recipient's activity read; empty when it is not theirs (read or not). */
export function markRead(db: Db, communityId: number, recipientId: number, id: string) {
	return db<ReadMark[]>`
		update activities set is_read = true, version = version + case when is_read then 0 else 1 end
		where community_id = ${communityId} and id = ${id} and recipient_id = ${recipientId}
		returning id, community_id, recipient_id::float8 as recipient_id, version::float8 as version`
}

export function markAllRead(db: Db, communityId: number, recipientId: number) {
	return db<ReadMark[]>`
		update activities set is_read = true, version = version + 1
		where community_id = ${communityId} and recipient_id = ${recipientId} and not is_read
		returning id, community_id, recipient_id::float8 as recipient_id, version::float8 as version`
}
