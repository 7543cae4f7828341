// Server process of the graph-feeds benchmark: the real app plus, on the same
// Elysia server, the connection and personalised pages computed by plain Postgres
// queries behind the same auth (the ceiling is bare-server.ts, in its own process).
// Prints `listening <port>` when ready.
import { Elysia, t } from 'elysia'
import { app } from '../../src/app'
import { sql } from '../../src/lib/db'
import { authPlugin } from '../../src/modules/auth/plugin'

const Page = t.Object({
	page: t.Optional(t.Integer({ minimum: 1 })),
	page_size: t.Optional(t.Integer({ minimum: 1 })),
})

const columns = (viewerId: number) => sql`
	p.id as _id, p.heading, p.text, p.attachments, p.community_id, p.is_pinned, p.likes_count, p.comments_count,
	p.post_shared_count, p.created_at::float8 as created_at, p.updated_at::float8 as updated_at,
	u.id as author_id, u.uuid as user_id, u.name, u.image_url,
	exists (select 1 from post_likes l where l.community_id = p.community_id and l.post_id = p.id
		and l.user_id = ${viewerId}) as is_liked,
	exists (select 1 from post_saves s where s.community_id = p.community_id and s.post_id = p.id
		and s.user_id = ${viewerId}) as is_saved`

function respond(rows: Record<string, unknown>[], key: 'feed' | 'posts') {
	const users: Record<string, unknown> = {}
	for (const row of rows)
		users[row.user_id as string] = {
			id: row.author_id,
			uuid: row.user_id,
			name: row.name,
			image_url: row.image_url,
		}
	return { success: true, error_message: null, data: { [key]: rows, users } }
}

const pg = new Elysia({ name: 'bench-pg-graph' })
	.use(authPlugin)
	.get(
		'/bench/pg-connection',
		async ({ session, query }) => {
			const size = query.page_size ?? 20
			const rows = await sql`
				select ${columns(session.userId)}
				from posts p join users u on u.community_id = p.community_id and u.id = p.user_id
				where p.community_id = ${session.communityId}
					and p.user_id in (select connection_id from connections
						where community_id = ${session.communityId} and user_id = ${session.userId})
					and not p.is_deleted and p.visibility in ('public', 'connections')
					and not exists (select 1 from blocks b where b.community_id = ${session.communityId}
						and ((b.blocker_id = ${session.userId} and b.blocked_id = p.user_id)
							or (b.blocker_id = p.user_id and b.blocked_id = ${session.userId})))
				order by p.created_at desc limit ${size} offset ${((query.page ?? 1) - 1) * size}`
			return respond(rows, 'feed')
		},
		{ auth: 'member', query: Page },
	)
	.get(
		'/bench/pg-personalised',
		async ({ session, query }) => {
			const size = query.page_size ?? 20
			const now = Date.now()
			// rankPost (src/timelines/ranking.ts) in SQL: recency, engagement, connection and author affinity, pinned.
			// Scores first (ranked ids only), then the page's columns: the fair plain-SQL plan.
			const rows = await sql`
				with fol as (select connection_id from connections
					where community_id = ${session.communityId} and user_id = ${session.userId}),
				aff as (
					select p.user_id as author, sum(w) as w from (
						select post_id, 1 as w from post_likes where community_id = ${session.communityId}
							and user_id = ${session.userId} and created_at > ${now - 90 * 86_400_000}
						union all
						select post_id, 2 from comments where community_id = ${session.communityId}
							and user_id = ${session.userId} and created_at > ${now - 90 * 86_400_000}
					) x join posts p on p.community_id = ${session.communityId} and p.id = x.post_id group by p.user_id),
				ranked as (
					select p.id, power(0.5, (${now} - p.created_at) / 86400000.0)
						* (1 + 0.5 * ln(1 + p.likes_count + 2 * p.comments_count + 3 * p.post_shared_count + 0.05 * p.reach_count))
						* (1 + case when p.user_id in (select connection_id from fol) then 0.5 else 0 end + 0.3 * ln(1 + coalesce(aff.w, 0)))
						* case when p.is_pinned then 2 else 1 end as score
					from posts p left join aff on aff.author = p.user_id
					where p.community_id = ${session.communityId} and not p.is_deleted and p.created_at > ${now - 30 * 86_400_000}
						and (p.visibility = 'public' or (p.visibility = 'connections' and p.user_id in (select connection_id from fol)))
					order by score desc limit ${size} offset ${((query.page ?? 1) - 1) * size})
				select ${columns(session.userId)}, r.score
				from ranked r join posts p on p.community_id = ${session.communityId} and p.id = r.id
				join users u on u.community_id = p.community_id and u.id = p.user_id
				order by r.score desc`
			return respond(rows, 'posts')
		},
		{ auth: 'member', query: Page },
	)

const server = new Elysia().use(pg).use(app).listen({ port: 0 })

console.log(`listening ${server.server?.port}`)
