// SQL of the personalised feed: the viewer's affinities and the ranked candidates.
// Every statement names its community (DESIGN §21), but for the operator's and the
// recompute job's lookups across communities, run in acrossCommunities (lib/db.ts).
import type { Db } from '../lib/db'
import { mayViewSql, reachesFollowersSql } from '../lib/visibility'

export interface Candidate {
	id: string
	user_id: number
	created_at: number
	likes_count: number
	comments_count: number
	post_shared_count: number
	reach_count: number
	is_pinned: boolean
	is_connection: boolean
	topic_ids: string[]
}

/** The authors the viewer follows (their posts get the connection boost). */
export async function followedAuthors(
	db: Db,
	communityId: number,
	userId: number,
): Promise<number[]> {
	const rows = await db<{ id: number }[]>`
		select connection_id::float8 as id from connections where community_id = ${communityId} and user_id = ${userId}`
	return rows.map((r) => r.id)
}

/** Weight per author of the viewer's likes (1) and comments (2) since `since`. */
export async function authorAffinity(
	db: Db,
	communityId: number,
	userId: number,
	since: number,
): Promise<Record<string, number>> {
	const rows = await db<{ author: number; weight: number }[]>`
		select author::float8 as author, sum(w)::float8 as weight from (
			select p.user_id as author, 1 as w
			from post_likes l join posts p on p.community_id = l.community_id and p.id = l.post_id
			where l.community_id = ${communityId} and l.user_id = ${userId} and l.created_at > ${since}
				and p.user_id <> ${userId}
			union all
			select p.user_id, 2
			from comments c join posts p on p.community_id = c.community_id and p.id = c.post_id
			where c.community_id = ${communityId} and c.user_id = ${userId} and c.created_at > ${since}
				and p.user_id <> ${userId}
		) x group by author`
	return Object.fromEntries(rows.map((r) => [String(r.author), r.weight]))
}

/**
 * What choosing a topic (user_topics) weighs: as much as this many recent likes in it,
 * so a chosen topic ranks up without burying what the viewer actually engages with.
 */
export const CHOSEN_TOPIC_WEIGHT = 3

/**
 * Weight per topic of the viewer's likes (1), comments (2) and own posts (2) since
 * `since`, plus CHOSEN_TOPIC_WEIGHT for each topic they chose.
 */
export async function topicAffinity(
	db: Db,
	userId: number,
	communityId: number,
	since: number,
): Promise<Record<string, number>> {
	const rows = await db<{ topic_id: string; weight: number }[]>`
		select topic_id, sum(w)::float8 as weight from (
			select pt.topic_id, x.w from (
				select l.post_id, 1 as w from post_likes l
				where l.community_id = ${communityId} and l.user_id = ${userId} and l.created_at > ${since}
				union all
				select c.post_id, 2 from comments c
				where c.community_id = ${communityId} and c.user_id = ${userId} and c.created_at > ${since}
				union all
				select p.id, 2 from posts p
				where p.community_id = ${communityId} and p.user_id = ${userId} and p.created_at > ${since}
					and not p.is_deleted
			) x join post_topics pt on pt.community_id = ${communityId} and pt.post_id = x.post_id
			union all
			select ut.topic_id, ${CHOSEN_TOPIC_WEIGHT} from user_topics ut
			where ut.community_id = ${communityId} and ut.user_id = ${userId}
		) y group by topic_id`
	return Object.fromEntries(rows.map((r) => [r.topic_id, r.weight]))
}

/**
 * Candidates: the community's recent posts, the recent posts of the people the viewer
 * follows, and the newest posts of the viewer's favourite topics — each undeleted,
 * visible to the viewer, not hidden by a block or by all-disabled topics.
 */
export async function personalisedCandidates(
	db: Db,
	userId: number,
	communityId: number,
	since: number,
	favouriteTopicIds: string[],
	limit: number,
): Promise<Candidate[]> {
	return db<Candidate[]>`
		with pool as (
			(select id from posts where community_id = ${communityId} and not is_deleted and created_at > ${since}
				order by created_at desc limit ${limit})
			union
			(select id from posts where community_id = ${communityId}
				and user_id in (select connection_id from connections where community_id = ${communityId} and user_id = ${userId})
				and not is_deleted order by created_at desc limit ${Math.ceil(limit / 4)})
			union
			(select pt.post_id from post_topics pt join posts p3 on p3.community_id = pt.community_id and p3.id = pt.post_id
				where pt.community_id = ${communityId} and pt.topic_id = any(${favouriteTopicIds}::text[])
					and not p3.is_deleted
				order by p3.created_at desc limit ${Math.ceil(limit / 4)})
		)
		select p.id, p.user_id::float8 as user_id, p.created_at::float8 as created_at, p.likes_count, p.comments_count,
			p.post_shared_count, p.reach_count, p.is_pinned,
			exists (select 1 from connections c where c.community_id = ${communityId} and c.user_id = ${userId}
				and c.connection_id = p.user_id) as is_connection,
			coalesce((select array_agg(pt.topic_id) from post_topics pt
				where pt.community_id = ${communityId} and pt.post_id = p.id), '{}') as topic_ids
		from posts p join pool on pool.id = p.id
		-- a feed never shows private posts, not even to their author, nor others' to a CM
		where p.community_id = ${communityId} and ${reachesFollowersSql(db, 'p')} and ${mayViewSql(db, 'p', { userId, communityId, isCm: false })}`
}

export async function enabledTopicIdsByNames(
	db: Db,
	communityId: number,
	names: string[],
): Promise<string[]> {
	if (names.length === 0) return []
	const rows = await db<{ id: string }[]>`
		select id from topics
		where community_id = ${communityId} and is_enabled and lower(name) = any(${names.map((n) => n.toLowerCase())}::text[])`
	return rows.map((r) => r.id)
}

export async function postIdsInAnyTopic(
	db: Db,
	communityId: number,
	postIds: string[],
	topicIds: string[],
): Promise<Set<string>> {
	if (postIds.length === 0 || topicIds.length === 0) return new Set()
	const rows = await db<{ post_id: string }[]>`
		select distinct post_id from post_topics
		where community_id = ${communityId} and post_id = any(${postIds}::text[]) and topic_id = any(${topicIds}::text[])`
	return new Set(rows.map((r) => r.post_id))
}

export async function recordRecompute(
	db: Db,
	userId: number,
	communityId: number,
	now: number,
): Promise<void> {
	await db`
		insert into feed_activity (user_id, community_id, last_read_at, recomputed_at) values (${userId}, ${communityId}, ${now}, ${now})
		on conflict (community_id, user_id) do update set recomputed_at = excluded.recomputed_at`
}

/**
 * Users who read a feed since `since` (the recompute job's population), in id batches.
 * Spans communities: call it inside acrossCommunities.
 */
export async function activeUsersAfter(db: Db, since: number, afterId: number, limit: number) {
	return db<{ user_id: number; community_id: number }[]>`
		select f.user_id::float8 as user_id, f.community_id from feed_activity f
		where f.last_read_at > ${since} and f.user_id > ${afterId} order by f.user_id limit ${limit}`
}

/** The community's users, in id batches. */
export async function usersAfter(db: Db, communityId: number, afterId: number, limit: number) {
	return db<{ user_id: number; community_id: number }[]>`
		select id::float8 as user_id, community_id from users
		where community_id = ${communityId} and not is_deleted and id > ${afterId}
		order by id limit ${limit}`
}

/**
 * A user by service uuid or integer id, for operator scripts: the community is what it
 * finds out, so it spans communities (call it inside acrossCommunities). No index serves
 * a user found without the community (migrations/0201): a scan of users, for a command
 * run by hand.
 */
export async function findUserRef(db: Db, uuidOrId: string) {
	const byId = /^\d+$/.test(uuidOrId)
	// Digits past a safe integer are no user id (not a bigint out of range: an error).
	if (byId && !Number.isSafeInteger(Number(uuidOrId))) return null
	const [row] = byId
		? await db<
				{ user_id: number; community_id: number }[]
			>`select id::float8 as user_id, community_id from users where id = ${Number(uuidOrId)}`
		: await db<
				{ user_id: number; community_id: number }[]
			>`select id::float8 as user_id, community_id from users where uuid::text = ${uuidOrId.toLowerCase()}`
	return row ?? null
}
