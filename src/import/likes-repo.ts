// Likes of an import's posts and comments: the last of the content steps run.ts
// commits as one transaction (content-repo.ts). Each kind is one INSERT … SELECT in
// the order of what it likes, so the (post, user) keys grow at one end; it reports to
// the CounterTally (counters.ts) how many it placed and whether any went under a post
// or comment that existed before this run.
import type { Db } from '../lib/db'
import { rejectWhere, type StepResult, unknownUser } from './apply-repo'
import type { CounterTally } from './counters'

export async function importLikes(db: Db, c: number, tally: CounterTally): Promise<StepResult> {
	await rejectWhere(
		db,
		'stage_likes',
		'unknown user_unique_id',
		unknownUser(db, c, db`s.user_unique_id`),
	)
	await rejectWhere(
		db,
		'stage_likes',
		'unknown post_external_id',
		db`s.post_external_id is not null and not exists (
			select 1 from posts p where p.community_id = ${c} and p.external_id = s.post_external_id)`,
	)
	await rejectWhere(
		db,
		'stage_likes',
		'unknown comment_external_id',
		db`s.comment_external_id is not null and not exists (
			select 1 from comments k where k.community_id = ${c} and k.external_id = s.comment_external_id)`,
	)
	const [staged] = await db`
		select count(*) filter (where post_external_id is not null)::int as post,
			count(*) filter (where comment_external_id is not null)::int as comment
		from stage_likes`
	await db`analyze new_posts, new_comments`
	let imported = 0
	// One statement per kind, each only when something of that kind is staged.
	for (const kind of likeKinds)
		if ((staged?.[kind.name] as number) > 0) {
			const placed = await placeLikes(db, c, kind, tally)
			tally.place(kind.counter, placed)
			imported += placed
		}
	const total = (staged?.post as number) + (staged?.comment as number)
	return { imported, matched: total - imported }
}

const likeKinds = [
	{
		name: 'post',
		counter: 'postLikes',
		likes: 'post_likes',
		parents: 'posts',
		inserted: 'new_posts',
		parentId: 'post_id',
		staged: 'post_external_id',
	},
	{
		name: 'comment',
		counter: 'commentLikes',
		likes: 'comment_likes',
		parents: 'comments',
		inserted: 'new_comments',
		parentId: 'comment_id',
		staged: 'comment_external_id',
	},
] as const

/** The staged likes of one kind (posts' or comments'), in the order of what they like. */
async function placeLikes(
	db: Db,
	c: number,
	kind: (typeof likeKinds)[number],
	tally: CounterTally,
): Promise<number> {
	// A like without created_at is dated with what it likes (history, not today).
	const [row] = await db`
		with src as materialized (
			select p.id as parent_id, u.id as user_id, coalesce(s.created_at, p.created_at) as created_at,
				n.id is not null as under_new
			from stage_likes s
			join users u on u.community_id = ${c} and u.user_unique_id = s.user_unique_id
			join ${db(kind.parents)} p on p.community_id = ${c} and p.external_id = s.${db(kind.staged)}
			left join ${db(kind.inserted)} n on n.id = p.id
			order by p.id, u.id),
		ins as (
			insert into ${db(kind.likes)} (community_id, ${db(kind.parentId)}, user_id, created_at)
			select ${c}, parent_id, user_id, created_at from src
			on conflict do nothing returning 1)
		select (select count(*) from ins)::int as n, (select count(*) from src)::int as sourced,
			(select count(*) from src where not under_new)::int as under_old`
	if (row?.sourced !== row?.n || (row?.under_old as number) > 0) tally.doubt()
	return row?.n as number
}
