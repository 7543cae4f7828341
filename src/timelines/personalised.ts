// The personalised feed engine: `feed:{u<id>}:pers` holds up to 500 candidates
// scored by rankPost at the last recompute (`feed:{u<id>}:pers:meta` keeps that time
// and the viewer's affinities). A read merges in the posts created since then,
// scored at read time with the same function, so the feed is never stale.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { hydratePosts } from './hydrate'
import { getPosts } from './post-cache'
import {
	authorAffinity,
	enabledTopicIdsByNames,
	personalisedCandidates,
	postIdsInAnyTopic,
	recordRecompute,
	topicAffinity,
} from './personalised-repo'
import type { Viewer } from './present'
import { rankPost, topicAffinityOf } from './ranking'

export const PERS_SIZE = 500
const CANDIDATE_LIMIT = 1000
const FRESH_LIMIT = 500
const WINDOW_MS = 30 * 86_400_000
const AFFINITY_WINDOW_MS = 90 * 86_400_000
const KEEP_SECONDS = 7 * 86_400

interface Meta {
	computedAt: number
	authors: Record<string, number>
	topics: Record<string, number>
}

/** Re-ranks the user's candidates from Postgres and stores the top PERS_SIZE. */
export async function recomputePersonalised(userId: number, communityId: number, now = Date.now()): Promise<number> {
	const [authors, topics] = await Promise.all([
		authorAffinity(sql, userId, now - AFFINITY_WINDOW_MS),
		topicAffinity(sql, userId, now - AFFINITY_WINDOW_MS),
	])
	const favourites = Object.entries(topics)
		.sort((a, b) => b[1] - a[1])
		.slice(0, 5)
		.map(([id]) => id)
	const candidates = await personalisedCandidates(sql, userId, communityId, now - WINDOW_MS, favourites, CANDIDATE_LIMIT)
	const scored = candidates
		.map((c) => ({
			id: c.id,
			score: rankPost(
				{
					createdAt: c.created_at,
					likes: c.likes_count,
					comments: c.comments_count,
					shares: c.post_shared_count,
					reach: c.reach_count,
					isPinned: c.is_pinned,
					isConnection: c.is_connection,
					authorAffinity: authors[String(c.user_id)] ?? 0,
					topicAffinity: topicAffinityOf(c.topic_ids, topics),
				},
				now,
			),
		}))
		.sort((a, b) => b.score - a.score)
		.slice(0, PERS_SIZE)
	const feed = keys.persFeed(userId)
	const meta = keys.persMeta(userId)
	const tx = redis.multi().del(feed, meta)
	if (scored.length > 0) tx.zadd(feed, ...scored.flatMap((s) => [s.score, s.id])).expire(feed, KEEP_SECONDS)
	tx.hset(meta, 'computed_at', now, 'authors', JSON.stringify(authors), 'topics', JSON.stringify(topics)).expire(meta, KEEP_SECONDS)
	await tx.exec()
	await recordRecompute(sql, userId, communityId, now)
	return scored.length
}

/** Asks a worker to recompute the user soon (the response does not wait). */
export async function queueRecompute(userId: number, communityId: number): Promise<void> {
	await redis.sadd(keys.recomputeQueue(), `${communityId}:${userId}`)
}

async function readMeta(userId: number): Promise<Meta | null> {
	const raw = await redis.hgetall(keys.persMeta(userId))
	if (!raw.computed_at) return null
	return { computedAt: Number(raw.computed_at), authors: JSON.parse(raw.authors ?? '{}'), topics: JSON.parse(raw.topics ?? '{}') }
}

function pairs(raw: string[]): { id: string; score: number }[] {
	const out: { id: string; score: number }[] = []
	for (let i = 0; i < raw.length; i += 2) out.push({ id: raw[i] as string, score: Number(raw[i + 1]) })
	return out
}

/** Posts created since the last recompute, scored now with the stored affinities. */
async function freshEntries(viewer: Viewer, meta: Meta, known: Set<string>) {
	const since = `(${meta.computedAt}`
	const [publicIds, connectionIds] = await Promise.all([
		redis.zrevrangebyscore(keys.universalFeed(viewer.communityId), '+inf', since, 'LIMIT', 0, FRESH_LIMIT),
		redis.zrevrangebyscore(keys.connFeed(viewer.userId), '+inf', since, 'LIMIT', 0, FRESH_LIMIT),
	])
	const followed = new Set(connectionIds)
	const ids = [...new Set([...publicIds, ...connectionIds])].filter((id) => !known.has(id))
	if (ids.length === 0) return []
	const posts = await getPosts(viewer.communityId, ids)
	return [...posts.values()].map((p) => ({
		id: p.id,
		score: rankPost(
			{
				createdAt: p.created_at,
				likes: p.likes_count,
				comments: p.comments_count,
				shares: p.post_shared_count,
				reach: p.reach_count,
				isPinned: p.is_pinned,
				isConnection: followed.has(p.id),
				authorAffinity: meta.authors[String(p.user_id)] ?? 0,
				topicAffinity: topicAffinityOf(p.topic_ids, meta.topics),
			},
			meta.computedAt,
		),
	}))
}

export interface PersonalisedQuery {
	page: number
	pageSize: number
	reorder: boolean
	recompute: boolean
	topicNames: string[]
}

export async function readPersonalised(viewer: Viewer, query: PersonalisedQuery) {
	if (query.reorder) await recomputePersonalised(viewer.userId, viewer.communityId)
	else if (query.recompute) await queueRecompute(viewer.userId, viewer.communityId)
	let meta = await readMeta(viewer.userId)
	if (!meta) {
		await recomputePersonalised(viewer.userId, viewer.communityId)
		meta = (await readMeta(viewer.userId)) as Meta
	}
	const offset = (query.page - 1) * query.pageSize
	const filtered = query.topicNames.length > 0
	// Unfiltered, the top (offset + size) stored entries merged with the fresh ones are
	// the top of the whole feed; a topic filter needs every candidate.
	const feed = keys.persFeed(viewer.userId)
	const [raw, storedCount] = await Promise.all([
		redis.zrevrange(feed, 0, filtered ? -1 : offset + query.pageSize - 1, 'WITHSCORES'),
		redis.zcard(feed),
	])
	const stored = pairs(raw)
	const fresh = await freshEntries(viewer, meta, new Set(stored.map((e) => e.id)))
	let entries = fresh.length > 0 ? [...stored, ...fresh].sort((a, b) => b.score - a.score) : stored
	let total = storedCount + fresh.length
	if (filtered) {
		const topicIds = await enabledTopicIdsByNames(sql, viewer.communityId, query.topicNames)
		const tagged = await postIdsInAnyTopic(sql, entries.map((e) => e.id), topicIds)
		entries = entries.filter((e) => tagged.has(e.id))
		total = entries.length
	}
	const pageIds = entries.slice(offset, offset + query.pageSize).map((e) => e.id)
	const { posts, users } = await hydratePosts(viewer, pageIds, { visibilities: ['public', 'connections'] })
	return { posts: posts.map((post) => ({ ...post, user: users[post.user_id] })), users, total_count: total }
}
