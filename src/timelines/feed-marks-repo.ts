// SQL of the durable marks of unconfirmed Redis placements (migrations/0050).
import type { Db } from '../lib/db'

export interface FeedMark {
	post_id: string
	community_id: number
	mark: string
	former_topic_ids: string[]
	former_widget_ids: string[]
}

/**
 * Marks the post as owed to Redis (in the writing transaction); former ids add to any
 * unconfirmed ones. The new mark is drawn in VALUES, not in the conflict's SET: Citus
 * takes no volatile function there.
 */
export async function upsertFeedMark(
	tx: Db,
	post: { id: string; community_id: number },
	formerTopicIds: string[],
	formerWidgetIds: string[],
): Promise<FeedMark> {
	const [row] = await tx<FeedMark[]>`
		insert into feed_marks (post_id, community_id, mark, former_topic_ids, former_widget_ids)
		values (${post.id}, ${post.community_id}, nextval('feed_mark_seq'), ${formerTopicIds}::text[], ${formerWidgetIds}::text[])
		on conflict (community_id, post_id) do update set
			mark = excluded.mark,
			former_topic_ids = feed_marks.former_topic_ids || excluded.former_topic_ids,
			former_widget_ids = feed_marks.former_widget_ids || excluded.former_widget_ids
		returning post_id, community_id, mark::text, former_topic_ids, former_widget_ids`
	return row as FeedMark
}

/** The marks of posts just created (none can have a mark yet, nor former ids): one statement. */
export function insertNewFeedMarks(
	tx: Db,
	posts: { id: string; community_id: number }[],
): Promise<FeedMark[]> {
	if (posts.length === 0) return Promise.resolve([])
	return tx<FeedMark[]>`with ${newFeedMarksCte(tx, posts)} select * from feed_mark`
}

/** insertNewFeedMarks as a CTE of a caller's statement: `feed_mark`, a FeedMark per post. */
export function newFeedMarksCte(db: Db, posts: { id: string; community_id: number }[]) {
	return db`
		feed_mark as (
			insert into feed_marks (post_id, community_id, former_topic_ids, former_widget_ids)
			select p.id, p.c, '{}', '{}'
			from unnest(${posts.map((p) => p.id)}::text[], ${posts.map((p) => p.community_id)}::int[]) as p(id, c)
			returning post_id, community_id, mark::text as mark, former_topic_ids, former_widget_ids)`
}

/**
 * Deletes each mark of the community that is still the one confirmed (a newer write
 * keeps its own). A post's newest confirmed mark is the one its row can still hold.
 * Each post's mark is looked up in the arrays, not joined: Citus routes a DELETE joined
 * to unnest() to every shard once the statement's plan is generic.
 */
export async function deleteFeedMarks(
	db: Db,
	communityId: number,
	marks: Pick<FeedMark, 'post_id' | 'mark'>[],
): Promise<void> {
	if (marks.length === 0) return
	const newest = new Map<string, string>()
	for (const { post_id, mark } of marks) {
		const seen = newest.get(post_id)
		if (seen === undefined || BigInt(mark) > BigInt(seen)) newest.set(post_id, mark)
	}
	const postIds = [...newest.keys()]
	await db`
		delete from feed_marks
		where community_id = ${communityId} and post_id = any(${postIds}::text[])
			and mark = (${[...newest.values()]}::bigint[])[array_position(${postIds}::text[], post_id)]`
}

/**
 * The oldest marks left unconfirmed for longer than `graceMs`, of every community: call
 * it inside acrossCommunities (a read, no lock).
 */
export function staleFeedMarks(db: Db, graceMs: number, limit: number): Promise<FeedMark[]> {
	return db<FeedMark[]>`
		select post_id, community_id, mark::text, former_topic_ids, former_widget_ids
		from feed_marks
		where marked_at < now() - make_interval(secs => ${graceMs / 1000})
		order by marked_at
		limit ${limit}`
}
