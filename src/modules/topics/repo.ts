// Topics: SQL only. NOTE for every writer of post_topics / posts.is_deleted: the
// statement that links, unlinks, deletes or restores writes its topics' count deltas
// itself (topicDeltas, in the same statement), never the topic's row, so posts into
// one topic do not queue on it; every read here adds the deltas not yet flushed
// (countedTopics); application code never updates the count but through flushTopicCounts.
// A topic's deletion cascading to its links writes none: the flush drops what a gone
// topic had.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../../lib/db'
import { acrossCommunities } from '../../lib/db'
import { paged } from '../../lib/paged'

export interface TopicRow {
	id: string
	community_id: number
	name: string
	priority: number
	is_searchable: boolean
	parent_id: string | null
	level: number
	is_enabled: boolean
	metadata: Record<string, unknown>
	post_count: number
	created_at: number
	updated_at: number
	parent_name?: string | null
}

const insertColumns = [
	'id',
	'community_id',
	'name',
	'priority',
	'is_searchable',
	'parent_id',
	'level',
	'is_enabled',
	'metadata',
	'created_at',
	'updated_at',
]

/** A row to insert: post_count is the links' (topicDeltas), updated_at starts as created_at. */
export type NewTopic = Omit<TopicRow, 'post_count' | 'updated_at' | 'parent_name'>

export async function insertTopics(db: Db, topics: NewTopic[]): Promise<TopicRow[]> {
	if (topics.length === 0) return []
	const rows = topics.map((t) => ({
		...t,
		metadata: db.json(t.metadata as never),
		updated_at: t.created_at,
	}))
	return db<TopicRow[]>`
		insert into topics ${db(rows as never, insertColumns as never)}
		returning *, created_at::float8 as created_at, updated_at::float8 as updated_at`
}

export async function findTopic(db: Db, communityId: number, id: string): Promise<TopicRow | null> {
	const [row] = await db<TopicRow[]>`
		select *, created_at::float8 as created_at, updated_at::float8 as updated_at
		from ${countedTopics(db, communityId)} topics where id = ${id}`
	return row ?? null
}

/**
 * The community's topics with the exact post_count: the stored count plus the deltas the
 * writers wrote since the last flush (one statement's snapshot sees a flush whole or
 * not at all, so nothing is counted twice or missed).
 */
const countedTopics = (db: Db, communityId: number) => db`(
	select t.id, t.community_id, t.name, t.priority, t.is_searchable, t.parent_id, t.level,
		t.is_enabled, t.metadata, t.created_at, t.updated_at,
		greatest(t.post_count + coalesce((select sum(d.delta) from topic_post_deltas d
			where d.community_id = ${communityId} and d.topic_id = t.id), 0), 0)::int as post_count
	from topics t where t.community_id = ${communityId})`

/** The community's topics (`t`) as TopicRow, with their parent's name: the caller adds the where clause. */
const topicsWithParent = (db: Db, communityId: number) => db`
	select t.*, t.created_at::float8 as created_at, t.updated_at::float8 as updated_at, p.name as parent_name
	from ${countedTopics(db, communityId)} t
	left join topics p on p.community_id = ${communityId} and p.id = t.parent_id`

/** Topics of the community among `ids` (any state), with their parent's name. */
export async function findTopicsByIds(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<TopicRow[]> {
	if (ids.length === 0) return []
	return db<TopicRow[]>`
		${topicsWithParent(db, communityId)}
		where t.id = any(${ids}::text[])`
}

/**
 * The topics linked to the community's posts `postIds` (findTopicsByIds by the posts,
 * before they are read).
 */
export function findTopicsOfPosts(db: Db, communityId: number, postIds: string[]) {
	return db<TopicRow[]>`
		${topicsWithParent(db, communityId)}
		where t.id = any(array(select topic_id from post_topics
			where community_id = ${communityId} and post_id = any(${postIds}::text[])))`
}

/** Enabled topics of the community among `ids`: the only topics a post may be tagged with. */
export async function findEnabledTopics(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<TopicRow[]> {
	const rows = await findTopicsByIds(db, communityId, ids)
	return rows.filter((t) => t.is_enabled)
}

/** Names (lower-cased) already used under each parent ('' = root) among `parents`. */
export async function takenNames(
	db: Db,
	communityId: number,
	parents: string[],
): Promise<Set<string>> {
	const rows = await db<{ parent: string; name: string }[]>`
		select coalesce(parent_id, '') as parent, lower(name) as name from topics
		where community_id = ${communityId} and coalesce(parent_id, '') = any(${parents}::text[])`
	return new Set(rows.map((r) => `${r.parent}\u0000${r.name}`))
}

export type TopicOrder = 'priority' | 'name' | 'created_at' | 'post_count'

export interface TopicFilter {
	isEnabled?: boolean
	nameLike?: string
	minPosts?: number
	parentIds?: string[]
	order: TopicOrder
	limit: number
	offset: number
}

const orderBy = {
	priority: 'priority desc, lower(name) asc, id asc',
	name: 'lower(name) asc, id asc',
	created_at: 'topics.created_at desc, id desc',
	post_count: 'post_count desc, lower(name) asc, id asc',
} satisfies Record<TopicOrder, string>

export async function listTopics(
	db: Db,
	communityId: number,
	f: TopicFilter,
): Promise<{ rows: TopicRow[]; total: number }> {
	const conditions = [db`community_id = ${communityId}`]
	if (f.isEnabled !== undefined) conditions.push(db`is_enabled = ${f.isEnabled}`)
	if (f.nameLike !== undefined) conditions.push(db`name ilike ${f.nameLike}`)
	if (f.minPosts !== undefined) conditions.push(db`post_count >= ${f.minPosts}`)
	if (f.parentIds !== undefined)
		conditions.push(db`coalesce(parent_id, '') = any(${f.parentIds}::text[])`)
	const where = conditions.reduce((acc, c) => db`${acc} and ${c}`)
	return paged<TopicRow>(db, {
		columns: db`*, created_at::float8 as created_at, updated_at::float8 as updated_at`,
		from: db`from ${countedTopics(db, communityId)} topics where ${where}`,
		orderBy: db.unsafe(orderBy[f.order]),
		limit: f.limit,
		offset: f.offset,
	})
}

/** The children of these topics (feed-js's child_topics), by priority as a page orders them. */
export async function childTopics(
	db: Db,
	communityId: number,
	parentIds: string[],
	isEnabled: boolean | undefined,
): Promise<TopicRow[]> {
	if (parentIds.length === 0) return []
	const enabled = isEnabled === undefined ? db`` : db`and is_enabled = ${isEnabled}`
	return db<TopicRow[]>`
		select *, created_at::float8 as created_at, updated_at::float8 as updated_at
		from ${countedTopics(db, communityId)} topics
		where parent_id = any(${parentIds}::text[]) ${enabled}
		order by ${db.unsafe(orderBy.priority)}
		limit 1000`
}

export interface TopicChanges {
	name?: string
	is_enabled?: boolean
	priority?: number
	is_searchable?: boolean
	metadata?: Record<string, unknown>
}

export async function updateTopic(
	db: Db,
	communityId: number,
	id: string,
	c: TopicChanges,
): Promise<TopicRow | null> {
	const set: Record<string, unknown> = { updated_at: Date.now() }
	for (const [key, value] of Object.entries(c)) {
		if (value !== undefined) set[key] = key === 'metadata' ? db.json(value as never) : value
	}
	const [row] = await db<TopicRow[]>`
		update topics set ${db(set)} where community_id = ${communityId} and id = ${id}
		returning *, created_at::float8 as created_at, updated_at::float8 as updated_at`
	if (row && c.name !== undefined)
		await refreshTopicNames(
			db,
			communityId,
			db`p.id in (select pt.post_id from post_topics pt
				where pt.community_id = ${communityId} and pt.topic_id = ${id})`,
		)
	return row ?? null
}

/** Deletes the topics and, by cascade, their descendants; returns every id removed and the posts that lost a topic. */
export async function deleteTopicsTree(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<{ topicIds: string[]; postIds: string[] }> {
	if (ids.length === 0) return { topicIds: [], postIds: [] }
	const rows = await db<{ id: string }[]>`
		with recursive tree as (
			select id from topics where community_id = ${communityId} and id = any(${ids}::text[])
			union
			select t.id from topics t join tree on t.parent_id = tree.id
			where t.community_id = ${communityId}
		)
		select id from tree`
	const topicIds = rows.map((r) => r.id)
	if (topicIds.length === 0) return { topicIds, postIds: [] }
	const posts = await db<{ post_id: string }[]>`
		select distinct post_id from post_topics
		where community_id = ${communityId} and topic_id = any(${topicIds}::text[])`
	await db`delete from topics where community_id = ${communityId} and id = any(${topicIds}::text[])`
	const postIds = posts.map((p) => p.post_id)
	await refreshTopicNames(db, communityId, db`p.id = any(${postIds}::text[])`)
	return { topicIds, postIds }
}

/**
 * Rewrites `topic_names` of the community's posts `which` selects (alias `p`) from their
 * topics now: the names a post's search vector holds (migrations/0100) after a rename or
 * a delete.
 */
async function refreshTopicNames(
	db: Db,
	communityId: number,
	which: ReturnType<Db>,
): Promise<void> {
	await db`
		update posts p set topic_names = coalesce((select string_agg(t.name, ' ' order by t.id)
			from post_topics pt join topics t on t.community_id = pt.community_id and t.id = pt.topic_id
			where pt.community_id = ${communityId} and pt.post_id = p.id), '')
		where p.community_id = ${communityId} and ${which}`
}

/**
 * The CTE `topic_deltas`: what the post_topics rows `links` (a query of their
 * `topic_id`s, one row a link: links of live posts of the community that the statement
 * made, `sign` 1, or removed, or whose posts it deleted, -1) change in their topics'
 * post_count, one delta row per topic.
 */
export function topicDeltas(db: Db, communityId: number, links: Fragment, sign: 1 | -1) {
	return db`
		topic_deltas as (
			insert into topic_post_deltas (community_id, topic_id, delta)
			select ${communityId}, l.topic_id, ${sign}::int * count(*)::int from (${links}) l
			group by l.topic_id)`
}

type Fragment = PendingQuery<Row[]>

/**
 * Folds the deltas the links' writers wrote into topics.post_count, one statement per
 * community that has any (the topics' rows are locked only until `tx` ends, right after;
 * a post's link takes a key share lock, which that update does not wait for); drops the
 * deltas of deleted topics. Which communities have deltas is read across communities (a
 * named exception: lib/db.ts acrossCommunities); each fold names its community, so it
 * runs on one Citus shard, and a read of a community's counts sees its fold whole or not
 * at all. One flusher at a time (two deleting each other's rows could deadlock): `tx`
 * must be a transaction, whose end releases the lock. Returns the deltas folded, or null
 * when another flusher held the lock.
 */
export async function flushTopicCounts(tx: Db): Promise<number | null> {
	const [lock] = await tx<{ ok: boolean }[]>`
		select pg_try_advisory_xact_lock(hashtext('topic_post_deltas')) as ok`
	if (!lock?.ok) return null
	// One statement per community (DESIGN §21), those with deltas found across
	// communities first (no lock; deltas written after it wait for the next flush).
	const communities = await acrossCommunities(async (q) =>
		(await q<{ community_id: number }[]>`select distinct community_id from topic_post_deltas`).map(
			(r) => r.community_id,
		),
	)
	let folded = 0
	for (const c of communities) {
		const [row] = await tx<{ n: number }[]>`
			with gone as (delete from topic_post_deltas where community_id = ${c} returning topic_id, delta),
			sums as (select topic_id, sum(delta)::int as n from gone group by topic_id),
			applied as (update topics t set post_count = greatest(t.post_count + s.n, 0)
				from sums s where t.community_id = ${c} and t.id = s.topic_id returning 1)
			select (select count(*)::int from gone) as n`
		folded += row?.n ?? 0
	}
	return folded
}
