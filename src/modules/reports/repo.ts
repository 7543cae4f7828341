// SQL of reports: filing one (one open per reporter and entity), what an entity is and
// who it accuses, the review queue (entities grouped, newest first) and closing.
import type { Db } from '../../lib/db'
import type { EntityType, QueueType } from './model'

export interface ReportRow {
	id: number
	entity_type: QueueType
	entity_id: string
	accused_user_id: number
	reporter_user_id: number
	/** null for a pending post's handle */
	tag_id: number | null
	reason: string | null
	created_at: number
	is_closed: boolean
	action_taken: string | null
	closed_by: number | null
	closed_at: number | null
}

const columns = (db: Db) => db`
	id::float8 as id, entity_type, entity_id, accused_user_id::float8 as accused_user_id,
	reporter_user_id::float8 as reporter_user_id, tag_id::float8 as tag_id,
	reason, created_at::float8 as created_at, is_closed, action_taken, closed_by::float8 as closed_by, closed_at::float8 as closed_at`

/** The author (accused) of a live entity of the community; null when there is none. */
export async function accusedOf(
	db: Db,
	communityId: number,
	type: EntityType,
	entityId: string,
): Promise<number | null> {
	const digits = /^[0-9]{1,18}$/.test(entityId)
	let rows: { user_id: number | null }[] = []
	if (type === 'post')
		rows = await db`select user_id::float8 as user_id from posts
			where community_id = ${communityId} and id = ${entityId} and not is_deleted`
	else if (type === 'comment' || type === 'reply')
		rows = await db`select user_id::float8 as user_id from comments
			where community_id = ${communityId} and id = ${entityId} and not is_deleted`
	else if (type === 'conversation' && digits)
		rows = await db`select user_id::float8 as user_id from conversations
			where community_id = ${communityId} and id = ${entityId}::bigint`
	else if (type === 'chatroom' && digits)
		rows = await db`select created_by::float8 as user_id from chatrooms
			where community_id = ${communityId} and id = ${entityId}::bigint and not is_deleted`
	else if (type === 'member')
		rows = /^[0-9a-f-]{36}$/i.test(entityId)
			? await db`select id::float8 as user_id from users
				where community_id = ${communityId} and uuid = ${entityId}::uuid and not is_deleted`
			: digits
				? await db`select id::float8 as user_id from users
					where community_id = ${communityId} and id = ${entityId}::int8 and not is_deleted`
				: []
	return rows[0]?.user_id ?? null
}

/** Files the report; null when the reporter already has an open one on the entity. */
export async function insertReport(
	db: Db,
	communityId: number,
	report: Pick<
		ReportRow & { entity_type: EntityType },
		| 'entity_type'
		| 'entity_id'
		| 'accused_user_id'
		| 'reporter_user_id'
		| 'tag_id'
		| 'reason'
		| 'created_at'
	>,
): Promise<ReportRow | null> {
	const [row] = await db<ReportRow[]>`
		insert into reports ${db({ community_id: communityId, ...report })}
		on conflict (community_id, entity_type, entity_id, reporter_user_id) where not is_closed do nothing
		returning ${columns(db)}`
	return row ?? null
}

/** Distinct members with an open report on the entity. */
export async function openReporters(
	db: Db,
	communityId: number,
	type: EntityType,
	entityId: string,
): Promise<number> {
	const [row] = await db<{ n: number }[]>`
		select count(distinct reporter_user_id)::int as n from reports
		where community_id = ${communityId} and entity_type = ${type} and entity_id = ${entityId}
			and not is_closed`
	return row?.n ?? 0
}

/** Locks the post's row until the transaction ends (reports of one post counted in turn). */
export async function lockPost(db: Db, communityId: number, postId: string): Promise<void> {
	await db`select 1 from posts where community_id = ${communityId} and id = ${postId} for no key update`
}

/** Reports of one conversation take turns on its row, so each counts the ones before it. */
export async function lockConversation(db: Db, communityId: number, id: string): Promise<void> {
	await db`select 1 from conversations where community_id = ${communityId} and id = ${id}::bigint for no key update`
}

/** Holds the post back from everyone but CMs; true when it was not held. */
export async function holdPost(db: Db, communityId: number, postId: string): Promise<boolean> {
	const rows = await db`
		update posts set held = 'auto_hidden'
		where community_id = ${communityId} and id = ${postId} and held is null and not is_deleted
		returning id`
	return rows.length > 0
}

/** Lets held posts go; the ids that were held. */
export async function releasePosts(db: Db, communityId: number, postIds: string[]) {
	if (postIds.length === 0) return []
	const rows = await db<{ id: string }[]>`
		update posts set held = null
		where community_id = ${communityId} and id = any(${postIds}::text[]) and held is not null
		returning id`
	return rows.map((r) => r.id)
}

/**
 * A page of the queue: the entities (of `types`, open or closed) in the order of their
 * latest report in that state, newest first. An entity's latest report is the one with
 * no later report of the same state: walking reports_queue newest first, the first rows
 * met are mostly latest reports, and each costs one probe of reports_entity, so the
 * first page reads a few dozen index entries however many reports are open.
 */
export async function queueEntities(
	db: Db,
	communityId: number,
	types: QueueType[],
	closed: boolean,
	limit: number,
	offset: number,
): Promise<{ entity_type: QueueType; entity_id: string }[]> {
	return db`
		select r.entity_type, r.entity_id from reports r
		where r.community_id = ${communityId} and r.is_closed = ${closed}
			and r.entity_type = any(${types}::text[])
			and not exists (select 1 from reports e
				where e.community_id = r.community_id and e.entity_type = r.entity_type
					and e.entity_id = r.entity_id and e.is_closed = r.is_closed and e.id > r.id)
		order by r.id desc limit ${limit} offset ${offset}`
}

/** Every report (in the state) of the entities, oldest first. */
export async function reportsOf(
	db: Db,
	communityId: number,
	entities: { entity_type: QueueType; entity_id: string }[],
	closed: boolean,
): Promise<ReportRow[]> {
	if (entities.length === 0) return []
	const types = entities.map((e) => e.entity_type)
	const ids = entities.map((e) => e.entity_id)
	return db<ReportRow[]>`
		select ${columns(db)} from reports
		where community_id = ${communityId} and is_closed = ${closed}
			and (entity_type, entity_id) in (select * from unnest(${types}::text[], ${ids}::text[]))
		order by id`
}

export async function findReports(
	db: Db,
	communityId: number,
	ids: number[],
): Promise<ReportRow[]> {
	return db<ReportRow[]>`
		select ${columns(db)} from reports
		where community_id = ${communityId} and id = any(${ids}::bigint[])`
}

/**
 * Closes every open report of the entities; the reports closed. No subquery of the
 * entities (`from unnest(…)` or `in (select …)`): Citus sends an UPDATE with one to every
 * shard once Postgres plans it generically. Types and ids go to the index (reports_entity),
 * the `type:id` pairs (a type has no colon) keep only the entities asked.
 */
export async function closeReportsOf(
	db: Db,
	communityId: number,
	entities: { entity_type: QueueType; entity_id: string }[],
	action: string,
	closedBy: number,
	now: number,
): Promise<ReportRow[]> {
	if (entities.length === 0) return []
	const types = entities.map((e) => e.entity_type)
	const ids = entities.map((e) => e.entity_id)
	const pairs = entities.map((e) => `${e.entity_type}:${e.entity_id}`)
	return db<ReportRow[]>`
		update reports set is_closed = true, action_taken = ${action}, closed_by = ${closedBy},
			closed_at = ${now}
		where community_id = ${communityId} and not is_closed
			and entity_type = any(${types}::text[]) and entity_id = any(${ids}::text[])
			and entity_type || ':' || entity_id = any(${pairs}::text[])
		returning ${columns(db)}`
}
