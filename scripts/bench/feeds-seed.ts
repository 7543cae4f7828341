// Seeds the feed benchmark's community in bulk (set-based INSERT ... SELECT over
// generate_series / unnest, never row by row): users, topics, posts with topics,
// likes and comments, then exact counters. Idempotent: an existing seed is reused.
import { sql } from '../../src/lib/db'
import { createProject } from '../../src/modules/projects/service'

export interface Seed {
	communityId: number
	viewerId: number
	viewerUuid: string
	topicIds: string[]
	posts: number
}

export interface SeedSize {
	users: number
	topics: number
	posts: number
	likes: number
	comments: number
}

const NAME = 'feeds-bench'

/** The text of the posts the "under writes" row creates while it reads. */
export const LIVE_POST_TEXT = 'a post while the feed is read'

async function existing(size: SeedSize): Promise<Seed | null> {
	const [community] = await sql<
		{ id: number }[]
	>`select id from communities where name = ${NAME} order by id desc limit 1`
	if (!community) return null
	// An earlier run's live posts would top page 1 with short posts: a lighter page than
	// the seed's, which made every run after the first measure a different page.
	await sql`delete from posts where community_id = ${community.id} and text = ${LIVE_POST_TEXT}`
	const [count] = await sql<
		{ n: number }[]
	>`select count(*)::int as n from posts where community_id = ${community.id}`
	if ((count?.n ?? 0) < size.posts) return null
	return describe(community.id)
}

async function describe(communityId: number): Promise<Seed> {
	const [viewer] = await sql<{ id: number; uuid: string }[]>`
		select id::float8 as id, uuid from users where community_id = ${communityId} and user_unique_id = 'bench-viewer'`
	const topics = await sql<
		{ id: string }[]
	>`select id from topics where community_id = ${communityId} order by name`
	const [count] = await sql<
		{ n: number }[]
	>`select count(*)::int as n from posts where community_id = ${communityId}`
	if (!viewer) throw new Error('bench viewer missing')
	return {
		communityId,
		viewerId: viewer.id,
		viewerUuid: viewer.uuid,
		topicIds: topics.map((t) => t.id),
		posts: count?.n ?? 0,
	}
}

/** 24-hex ids like newId(): time part from created_at, then a per-row sequence. */
const idExpr = (prefix: string) =>
	`lpad(to_hex((created_at / 1000)::bigint), 8, '0') || '${prefix}' || lpad(to_hex(n), 14, '0')`

export async function seed(size: SeedSize, log: (msg: string) => void): Promise<Seed> {
	const found = await existing(size)
	if (found) {
		log(`reusing seeded community ${found.communityId} (${found.posts} posts)`)
		return found
	}
	const project = await createProject({
		name: NAME,
		ownerCountryCode: '1',
		ownerMobile: `55${Date.now() % 1e8}`,
	})
	const c = project.community_id
	const now = Date.now()
	const started = performance.now()
	await sql.begin(async (tx) => {
		await tx`
			insert into users (uuid, community_id, user_unique_id, name, image_url)
			select gen_random_uuid(), ${c}, u, 'Bench ' || u, 'https://img.example/' || u || '.png'
			from unnest(array['bench-viewer'] || array(select 'bench-' || g from generate_series(1, ${size.users - 1}) g)) u`
		await tx`
			insert into topics (id, community_id, name, priority, created_at, updated_at)
			select lpad(to_hex(${Math.floor(now / 1000)}::int), 8, '0') || '74' || lpad(to_hex(g), 14, '0'), ${c},
				'Topic ' || lpad(g::text, 2, '0'), g, ${now}, ${now}
			from generate_series(1, ${size.topics}) g`
		// Posts spread over 90 days, authored by random users; public, a few private.
		await tx.unsafe(`
			create temp table bench_users on commit drop as
			select row_number() over (order by id) as k, id from users where community_id = ${c}`)
		await tx.unsafe(`
			insert into posts (id, community_id, user_id, heading, text, attachments, visibility, likes_count, comments_count, created_at, updated_at)
			select ${idExpr('70')}, ${c}, u.id, 'Heading ' || n,
				'Post number ' || n || ' with a realistic amount of text about jobs, events and the community. ' || repeat('Lorem ipsum dolor sit amet. ', 1 + n % 6),
				case when n % 7 = 0 then '[{"attachment_type":1,"attachment_meta":{"url":"https://img.example/p.png","format":"png","size":2048},"file_type":1,"file_url":"https://img.example/p.png","file_format":"png","file_size":"2048"}]'::jsonb else '[]'::jsonb end,
				case when n % 50 = 0 then 'private' else 'public' end, 0, 0, created_at, created_at
			from (select n, ${now} - (random() * 90 * 86400000)::bigint as created_at, 1 + (random() * ${size.users - 1})::int as k
				from generate_series(1, ${size.posts}) n) g
			join bench_users u on u.k = g.k`)
		// One or two topics per post, with their topics' post_count deltas.
		await tx.unsafe(`
			with links as (
				insert into post_topics (community_id, post_id, topic_id)
				select distinct ${c}, p.id, t.id from posts p
				cross join lateral (select generate_series(1, 1 + (hashtext(p.id) & 1)) s) pick
				join (select row_number() over (order by name) as k, id from topics where community_id = ${c}) t
					on t.k = 1 + ((hashtext(p.id || pick.s) & 2147483647) % ${size.topics})
				where p.community_id = ${c}
				returning topic_id)
			insert into topic_post_deltas (community_id, topic_id, delta)
			select ${c}, topic_id, count(*)::int from links group by topic_id`)
		await tx.unsafe(`
			insert into post_likes (community_id, post_id, user_id, created_at)
			select distinct on (p.id, u.id) ${c}, p.id, u.id, ${now}
			from (select 1 + (random() * ${size.posts - 1})::int as pk, 1 + (random() * ${size.users - 1})::int as uk
				from generate_series(1, ${size.likes})) r
			join (select row_number() over (order by id) as k, id from posts where community_id = ${c}) p on p.k = r.pk
			join bench_users u on u.k = r.uk
			on conflict do nothing`)
		await tx.unsafe(`
			insert into comments (id, community_id, post_id, user_id, text, created_at, updated_at)
			select lpad(to_hex((${now}::bigint / 1000)), 8, '0') || '63' || lpad(to_hex(r.n), 14, '0'), ${c}, p.id, u.id,
				'Comment ' || r.n, ${now}, ${now}
			from (select n, 1 + (random() * ${size.posts - 1})::int as pk, 1 + (random() * ${size.users - 1})::int as uk
				from generate_series(1, ${size.comments}) n) r
			join (select row_number() over (order by id) as k, id from posts where community_id = ${c}) p on p.k = r.pk
			join bench_users u on u.k = r.uk`)
		await tx.unsafe(`
			update posts p set likes_count = coalesce(l.n, 0), comments_count = coalesce(m.n, 0)
			from posts q
			left join (select post_id, count(*)::int n from post_likes where community_id = ${c} group by post_id) l
				on l.post_id = q.id
			left join (select post_id, count(*)::int n from comments where community_id = ${c} group by post_id) m
				on m.post_id = q.id
			where p.community_id = ${c} and p.id = q.id and q.community_id = ${c}`)
	})
	await sql`analyze`
	log(`seeded community ${c} in ${Math.round(performance.now() - started)} ms`)
	return describe(c)
}
