// The export's reads: every record of a community in the import format, streamed with
// server-side cursors (memory: one batch). Deleted posts and comments are left out, as
// are the dashboard owners (their identity is not a customer id). A row imported
// earlier keeps the customer's id; one created in plaza uses its own id as the
// external id, so a re-import matches it either way.
import type { Db } from '../../lib/db'

const BATCH = 2000

type Rows = AsyncIterable<Record<string, unknown>[]>

export function exportUsers(db: Db, c: number): Rows {
	return db`
		select 'user' as type, user_unique_id, name, image_url, is_guest,
			(extract(epoch from created_at) * 1000)::bigint::float8 as created_at
		from users where community_id = ${c} and role <> 'owner' and user_unique_id is not null
		order by id`.cursor(BATCH)
}

export function exportTopics(db: Db, c: number): Rows {
	return db`
		select 'topic' as type, coalesce(t.external_id, t.id) as external_id, t.name,
			coalesce(p.external_id, p.id) as parent_external_id, t.priority, t.is_enabled
		from topics t left join topics p on p.community_id = t.community_id and p.id = t.parent_id
		where t.community_id = ${c} order by t.level, t.id`.cursor(BATCH)
}

// The subqueries name the community as a value: Citus routes a correlated subquery to one
// shard only then (the outer row's column is not enough).
const liveAuthor = (db: Db, alias: string, c: number) => db`
	exists (select 1 from users u where u.community_id = ${c} and u.id = ${db(alias)}.user_id
		and u.role <> 'owner' and u.user_unique_id is not null)`

export function exportPosts(db: Db, c: number): Rows {
	return db`
		select 'post' as type, coalesce(p.external_id, p.id) as external_id, u.user_unique_id, p.text,
			p.heading, p.created_at::float8 as created_at, p.attachments, p.visibility,
			coalesce((select jsonb_agg(coalesce(t.external_id, t.id) order by t.id)
				from post_topics pt join topics t on t.community_id = pt.community_id and t.id = pt.topic_id
				where pt.community_id = ${c} and pt.post_id = p.id), '[]') as topic_external_ids
		from posts p join users u on u.community_id = p.community_id and u.id = p.user_id
		where p.community_id = ${c} and not p.is_deleted and ${liveAuthor(db, 'p', c)}
		order by p.id`.cursor(BATCH)
}

export function exportComments(db: Db, c: number): Rows {
	return db`
		select 'comment' as type, coalesce(k.external_id, k.id) as external_id, u.user_unique_id,
			coalesce(p.external_id, p.id) as post_external_id,
			coalesce(par.external_id, par.id) as parent_external_id, k.text, k.created_at::float8 as created_at
		from comments k join posts p on p.community_id = k.community_id and p.id = k.post_id
		join users u on u.community_id = k.community_id and u.id = k.user_id
		left join comments par on par.community_id = k.community_id and par.id = k.parent_id
		where k.community_id = ${c} and not k.is_deleted and not p.is_deleted
			and not coalesce(par.is_deleted, false) and ${liveAuthor(db, 'k', c)} and ${liveAuthor(db, 'p', c)}
		order by k.level, k.id`.cursor(BATCH)
}

export function exportLikes(db: Db, c: number): Rows {
	return db`
		select 'like' as type, u.user_unique_id, coalesce(p.external_id, p.id) as post_external_id,
			null as comment_external_id, l.created_at::float8 as created_at
		from post_likes l join posts p on p.community_id = l.community_id and p.id = l.post_id
		join users u on u.community_id = l.community_id and u.id = l.user_id
		where l.community_id = ${c} and not p.is_deleted and ${liveAuthor(db, 'l', c)} and ${liveAuthor(db, 'p', c)}
		union all
		select 'like', u.user_unique_id, null, coalesce(k.external_id, k.id), l.created_at::float8
		from comment_likes l join comments k on k.community_id = l.community_id and k.id = l.comment_id
			join posts p on p.community_id = l.community_id and p.id = k.post_id
			join users u on u.community_id = l.community_id and u.id = l.user_id
		where l.community_id = ${c} and not k.is_deleted and not p.is_deleted
			and ${liveAuthor(db, 'l', c)} and ${liveAuthor(db, 'k', c)} and ${liveAuthor(db, 'p', c)}`.cursor(
		BATCH,
	)
}

/** A two_way connection (two rows) is one record; a one_way row is one record. */
export function exportConnections(db: Db, c: number): Rows {
	return db`
		select 'connection' as type, a.user_unique_id, b.user_unique_id as target_user_unique_id, x.connection_type
		from connections x join users a on a.community_id = x.community_id and a.id = x.user_id
		join users b on b.community_id = x.community_id and b.id = x.connection_id
		where x.community_id = ${c} and (x.connection_type = 'one_way' or x.user_id < x.connection_id)
			and a.role <> 'owner' and b.role <> 'owner'
			and a.user_unique_id is not null and b.user_unique_id is not null`.cursor(BATCH)
}
