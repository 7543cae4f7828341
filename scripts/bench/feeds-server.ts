// The benchmark's server process: the real app plus, on the same Elysia server, the
// breakdown routes — a constant (what the app's server and hooks cost before any
// route's work), the same behind authentication, page 1's bytes as a constant — and
// the same feed page answered by a plain Postgres query (join + order by + limit),
// behind the same auth as the real feed. The ceiling is not here: it is bare-server.ts,
// in its own process. Prints `listening <port>` when ready.
import { Elysia, t } from 'elysia'
import { app } from '../../src/app'
import { sql } from '../../src/lib/db'
import { okJson } from '../../src/lib/raw-json'
import { authPlugin } from '../../src/modules/auth/plugin'
import { viewerOf } from '../../src/modules/auth/session'
import { parseIdList } from '../../src/modules/feeds/model'
import { readUniversalJson } from '../../src/timelines'

const pgFeed = new Elysia({ name: 'bench-pg' }).use(authPlugin).get(
	'/bench/pg-universal',
	async ({ session, query }) => {
		const page = query.page ?? 1
		const size = Math.min(query.page_size ?? 20, 100)
		const topicIds = parseIdList('topic_ids', query.topic_ids)
		const byTopic = topicIds.length > 0
		const rows = await sql`
			select p.id as _id, p.heading, p.text, p.attachments, p.community_id, p.is_pinned, p.is_edited,
				p.likes_count, p.comments_count, p.post_shared_count, p.impressions_count::float8 as impressions_count,
				p.reach_count, p.created_at::float8 as created_at, p.updated_at::float8 as updated_at,
				u.id as author_id, u.uuid as user_id, u.name, u.image_url, u.user_unique_id, u.is_guest, u.is_deleted as user_deleted,
				exists (select 1 from post_likes l where l.community_id = p.community_id and l.post_id = p.id
					and l.user_id = ${session.userId}) as is_liked,
				exists (select 1 from post_saves s where s.community_id = p.community_id and s.post_id = p.id
					and s.user_id = ${session.userId}) as is_saved
			from posts p join users u on u.community_id = p.community_id and u.id = p.user_id
			where p.community_id = ${session.communityId} and not p.is_deleted and p.visibility = 'public'
				and (${!byTopic} or exists (select 1 from post_topics pt where pt.community_id = p.community_id
					and pt.post_id = p.id and pt.topic_id = any(${topicIds}::text[])))
			order by p.created_at desc limit ${size} offset ${(page - 1) * size}`
		const users: Record<string, unknown> = {}
		for (const row of rows)
			users[row.user_id] = {
				id: row.author_id,
				uuid: row.user_id,
				name: row.name,
				image_url: row.image_url,
			}
		return { success: true, error_message: null, data: { posts: rows, users } }
	},
	{
		auth: 'member',
		query: t.Object({
			page: t.Optional(t.Integer({ minimum: 1 })),
			page_size: t.Optional(t.Integer({ minimum: 1 })),
			topic_ids: t.Optional(t.String()),
		}),
	},
)

// Same auth and rate limits as the feed, constant answers: what any authenticated
// route costs, and what sending a feed page's bytes costs (page 1, captured once).
let pageBytes: Buffer | null = null
const authOnly = new Elysia({ name: 'bench-auth' })
	.use(authPlugin)
	.get('/bench/auth-only', () => ({ success: true }), { auth: 'member' })
	.get(
		'/bench/static-page',
		async ({ session }) => {
			pageBytes ??= await readUniversalJson(viewerOf(session), {
				topicIds: [],
				widgetIds: [],
				page: 1,
				pageSize: 20,
			})
			// Sent as the feed sends it (okJson(): envelope, direct stream), so the row is the cost of the bytes alone.
			return okJson(pageBytes)
		},
		{ auth: 'member' },
	)

const server = new Elysia()
	.get('/bench/constant', () => 'ok')
	.use(authOnly)
	.use(pgFeed)
	.use(app)
	.listen({ port: 0 })

console.log(`listening ${server.server?.port}`)
