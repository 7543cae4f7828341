// The personalised feed engine: `feed:{u<id>}:pers` holds up to 500 candidates
// scored by rankPost at the last recompute (`feed:{u<id>}:pers:meta` keeps that time
// and the viewer's affinities). A read merges in the posts created since then,
// scored at read time with the same function, so the feed is never stale.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import type { VisibilityRules } from './hydrate'
import {
	authorAffinity,
	enabledTopicIdsByNames,
	personalisedCandidates,
	postIdsInAnyTopic,
	recordRecompute,
	topicAffinity,
} from './personalised-repo'
import { getPosts, viewerBlocks } from './post-cache'
import type { Viewer } from './present'
import { rankPost, topicAffinityOf } from './ranking'
import { renderSelection, selectPage } from './render'

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
export async function recomputePersonalised(
	userId: number,
	communityId: number,
	now = Date.now(),
): Promise<number> {
	const [authors, topics] = await Promise.all([
		authorAffinity(sql, userId, now - AFFINITY_WINDOW_MS),
		topicAffinity(sql, userId, now - AFFINITY_WINDOW_MS),
	])
	const favourites = Object.entries(topics)
		.sort((a, b) => b[1] - a[1])
		.slice(0, 5)
		.map(([id]) => id)
	const candidates = await personalisedCandidates(
		sql,
		userId,
		communityId,
		now - WINDOW_MS,
		favourites,
		CANDIDATE_LIMIT,
	)
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
	if (scored.length > 0)
		tx.zadd(feed, ...scored.flatMap((s) => [s.score, s.id])).expire(feed, KEEP_SECONDS)
	tx.hset(
		meta,
		'computed_at',
		now,
		'authors',
		JSON.stringify(authors),
		'topics',
		JSON.stringify(topics),
	).expire(meta, KEEP_SECONDS)
	await tx.exec()
	await recordRecompute(sql, userId, communityId, now)
	return scored.length
}

/** Asks a worker to recompute the user soon (the response does not wait). */
export async function queueRecompute(userId: number, communityId: number): Promise<void> {
	await redis.sadd(keys.recomputeQueue(), `${communityId}:${userId}`)
}

/** When the stored ranking was computed (null: never, or expired). */
async function computedAtOf(userId: number): Promise<number | null> {
	const raw = await redis.hget(keys.persMeta(userId), 'computed_at')
	return raw === null ? null : Number(raw)
}

/** The affinities stored at the last recompute (read only when fresh posts need scoring). */
async function readMeta(userId: number, computedAt: number): Promise<Meta> {
	const [authors, topics] = await redis.hmget(keys.persMeta(userId), 'authors', 'topics')
	return { computedAt, authors: JSON.parse(authors ?? '{}'), topics: JSON.parse(topics ?? '{}') }
}

function pairs(raw: string[]): { id: string; score: number }[] {
	const out: { id: string; score: number }[] = []
	for (let i = 0; i < raw.length; i += 2)
		out.push({ id: raw[i] as string, score: Number(raw[i + 1]) })
	return out
}

/** Posts created since the last recompute, scored now with the stored affinities. */
async function freshEntries(viewer: Viewer, computedAt: number, known: Set<string>) {
	const since = `(${computedAt}`
	const [publicIds, connectionIds] = await Promise.all([
		redis.zrevrangebyscore(
			keys.universalFeed(viewer.communityId),
			'+inf',
			since,
			'LIMIT',
			0,
			FRESH_LIMIT,
		),
		redis.zrevrangebyscore(keys.connFeed(viewer.userId), '+inf', since, 'LIMIT', 0, FRESH_LIMIT),
	])
	const followed = new Set(connectionIds)
	const ids = [...new Set([...publicIds, ...connectionIds])].filter((id) => !known.has(id))
	if (ids.length === 0) return []
	const [meta, posts] = await Promise.all([
		readMeta(viewer.userId, computedAt),
		getPosts(viewer.communityId, ids),
	])
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

const SHOWN: VisibilityRules = { visibilities: ['public', 'connections'] }

/**
 * A page of the personalised feed as the `data` JSON: `{posts (each with its author as
 * user), users, total_count, page, page_size}`. Unfiltered, the stored top n merged with
 * the fresh posts is the top n of the whole feed (n doubles when hidden posts thin the
 * page out); a topic filter needs every candidate (and Postgres for the topics).
 */
export async function readPersonalisedJson(
	viewer: Viewer,
	query: PersonalisedQuery,
): Promise<Buffer> {
	const u = viewer.userId
	if (query.reorder) await recomputePersonalised(u, viewer.communityId)
	else if (query.recompute) await queueRecompute(u, viewer.communityId)
	const offset = (query.page - 1) * query.pageSize
	const filtered = query.topicNames.length > 0
	const feed = keys.persFeed(u)
	const top = async (n: number) =>
		pairs(await redis.zrevrange(feed, 0, filtered ? -1 : n - 1, 'WITHSCORES'))
	const read = () => Promise.all([computedAtOf(u), top(offset + query.pageSize), redis.zcard(feed)])
	let [[computedAt, stored, storedCount], blocked] = await Promise.all([read(), viewerBlocks(u)])
	if (computedAt === null) {
		await recomputePersonalised(u, viewer.communityId)
		;[computedAt, stored, storedCount] = await read()
	}
	const fresh = await freshEntries(viewer, computedAt ?? 0, new Set(stored.map((e) => e.id)))
	const merge = (entries: { id: string; score: number }[]) => {
		if (fresh.length === 0) return entries
		// A post dated ahead (created_at may be up to 5 min in the future) can be in both.
		const listed = new Set(entries.map((e) => e.id))
		return [...entries, ...fresh.filter((e) => !listed.has(e.id))].sort((a, b) => b.score - a.score)
	}
	let entries = merge(stored)
	let total = storedCount + fresh.length
	if (filtered) {
		const topicIds = await enabledTopicIdsByNames(sql, viewer.communityId, query.topicNames)
		const tagged = await postIdsInAnyTopic(
			sql,
			entries.map((e) => e.id),
			topicIds,
		)
		entries = entries.filter((e) => tagged.has(e.id))
		total = entries.length
	}
	// The first n of the whole feed: the stored top n merged with the fresh posts.
	const window = (list: { id: string }[], n: number) => list.slice(0, n).map((e) => e.id)
	const more = async (n: number) => window(filtered ? entries : merge(await top(n)), n)
	const selection = await selectPage(
		viewer,
		window(entries, offset + query.pageSize),
		more,
		blocked,
		SHOWN,
		offset,
		query.pageSize,
	)
	const parts = await renderSelection(viewer, selection, { embedUser: true })
	parts.push(
		Buffer.from(`,"total_count":${total},"page":${query.page},"page_size":${query.pageSize}}`),
	)
	return Buffer.concat(parts)
}
