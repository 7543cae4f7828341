// The personalised feed engine: `feed:{u<id>}:pers` holds the candidates scored by
// rankPost at the last recompute (`feed:{u<id>}:pers:meta` keeps that time, the
// viewer's affinities and `stream_id`: how far into the community's placement stream
// the stored ranking reaches). A read merges in what was placed since — ranked from the
// stream entries themselves, no post loaded — and the fresh posts of the viewer's
// connection feed, so the feed is never stale. Once a read finds more than FOLD_AT
// placements past the viewer's position it folds them into the stored ranking and
// moves the position on: a read's work stays about one page window however many posts
// were written since the recompute (issue 17).
//
// What keeps it exact under concurrency (issue 40): the position only ever moves past
// placements that were read and folded (a read that finds more than FRESH_LIMIT catches
// up oldest first, or recomputes when the stream no longer reaches back to it); a post's
// score depends only on the post and the stored meta (the followed authors are part of
// the meta, never the connection feed, which fan-out fills later); the stored ranking is
// read together with its meta; and equal scores are ordered by id as Redis orders them.
import { sql } from '../lib/db'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { connectionFeedVersion } from './connection-feed'
import type { VisibilityRules } from './hydrate'
import { PLACEMENTS_KEPT, parsePlacement } from './index-post'
import { basisOf, feedVersion, type SharedPage, viewerPages } from './page-cache'
import {
	authorAffinity,
	enabledTopicIdsByNames,
	followedAuthors,
	personalisedCandidates,
	postIdsInAnyTopic,
	recordRecompute,
	topicAffinity,
} from './personalised-repo'
import { getPosts } from './post-cache'
import type { Viewer } from './present'
import { rankPost, topicAffinityOf } from './ranking'
import { keptPageBytes, loadAuthors, renderToKeep, selectPage } from './render'
import type { CachedPost } from './repo'
import type { Exclusions, ViewerFlags } from './viewer-state'
import { viewerState } from './viewer-state'

export const PERS_SIZE = 500
const CANDIDATE_LIMIT = 1000
const FRESH_LIMIT = 500
const CONN_FRESH_LIMIT = 100
const FOLD_AT = 20
// A read far behind folds the backlog this many placements at a time, oldest first.
const CATCH_UP_CHUNK = 1000
// Catch-ups a read tries before it serves what it has (writes outrunning it).
const CATCH_UP_TRIES = 3
// Folded posts join the stored ranking; it keeps at most this many (lowest first out).
const STORED_MAX = PERS_SIZE + FRESH_LIMIT
const WINDOW_MS = 30 * 86_400_000
const AFFINITY_WINDOW_MS = 90 * 86_400_000
const KEEP_SECONDS = 7 * 86_400

interface Meta {
	/** As stored (the fold compares it to be sure no recompute came in between). */
	computedAtRaw: string
	computedAt: number
	streamId: string
}

interface Affinities {
	authors: Record<string, number>
	topics: Record<string, number>
	/** The authors the viewer followed at the recompute: the connection boost's only source. */
	connections: Set<number>
}

/** Best first; equal scores by id, descending, as ZREVRANGE orders them. */
export const byRank = (a: Scored, b: Scored) =>
	b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

// Folds scored placements into the stored ranking unless a recompute replaced it
// meanwhile; the stream position only moves forward. Keys of one user ({u<id>}).
redis.defineCommand('persFold', {
	numberOfKeys: 2,
	lua: `if redis.call('hget', KEYS[2], 'computed_at') ~= ARGV[1] then return 0 end
local function after(a, b)
  local am, as = string.match(a, '(%d+)-(%d+)')
  local bm, bs = string.match(b, '(%d+)-(%d+)')
  if tonumber(am) ~= tonumber(bm) then return tonumber(am) > tonumber(bm) end
  return tonumber(as) > tonumber(bs)
end
if after(ARGV[2], redis.call('hget', KEYS[2], 'stream_id') or '0-0') then redis.call('hset', KEYS[2], 'stream_id', ARGV[2]) end
if #ARGV > 4 then redis.call('zadd', KEYS[1], unpack(ARGV, 5)) end
local keep = tonumber(ARGV[3])
if redis.call('zcard', KEYS[1]) > keep then redis.call('zremrangebyrank', KEYS[1], 0, -keep - 1) end
redis.call('expire', KEYS[1], ARGV[4])
return 1`,
})

type FoldCommand = (
	feed: string,
	meta: string,
	computedAt: string,
	streamId: string,
	keep: number,
	ttl: number,
	...scoresAndIds: (string | number)[]
) => Promise<number>

/** Re-ranks the user's candidates from Postgres and stores the top PERS_SIZE. */
export async function recomputePersonalised(
	userId: number,
	communityId: number,
	now = Date.now(),
): Promise<number> {
	const [authors, topics, followed] = await Promise.all([
		authorAffinity(sql, communityId, userId, now - AFFINITY_WINDOW_MS),
		topicAffinity(sql, userId, communityId, now - AFFINITY_WINDOW_MS),
		followedAuthors(sql, communityId, userId),
	])
	const affinities = { authors, topics, connections: new Set(followed) }
	// Read before the candidates: a post placed meanwhile is then in both (merged by id), never in neither.
	const streamId = await lastPlacement(communityId)
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
			score: scoreOf(c, affinities.connections.has(c.user_id), affinities, now),
		}))
		.sort(byRank)
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
		'connections',
		JSON.stringify(followed),
		'stream_id',
		streamId,
	).expire(meta, KEEP_SECONDS)
	await tx.exec()
	await recordRecompute(sql, userId, communityId, now)
	return scored.length
}

/**
 * Drops the users' stored rankings after their follows changed: the connection boost
 * comes from the followed authors stored with the ranking, so the next read recomputes.
 */
export async function forgetPersonalised(userIds: number[]): Promise<void> {
	await Promise.all(userIds.map((id) => redis.del(keys.persFeed(id), keys.persMeta(id))))
}

/** Asks a worker to recompute the user soon (the response does not wait). */
export async function queueRecompute(userId: number, communityId: number): Promise<void> {
	await redis.sadd(keys.recomputeQueue(), `${communityId}:${userId}`)
}

/** The id of the community's newest placement ('0-0' when none). */
async function lastPlacement(communityId: number): Promise<string> {
	const [newest] = await redis.xrevrange(keys.placements(communityId), '+', '-', 'COUNT', 1)
	return newest?.[0] ?? '0-0'
}

/** When the stored ranking was computed and how far it reaches (null: never, or expired). */
async function metaOf(userId: number): Promise<Meta | null> {
	return parseMeta(await redis.hmget(keys.persMeta(userId), 'computed_at', 'stream_id'))
}

function parseMeta([computedAt, streamId]: (string | null)[]): Meta | null {
	if (computedAt == null) return null
	return { computedAtRaw: computedAt, computedAt: Number(computedAt), streamId: streamId ?? '0-0' }
}

// Parsed affinities by (user, recompute time): read and parsed once per recompute, not per read.
const affinityCache = new Map<string, Affinities>()
const AFFINITY_CACHE_MAX = 20_000

async function affinitiesOf(userId: number, meta: Meta): Promise<Affinities> {
	const cacheKey = `${userId}:${meta.computedAtRaw}`
	const cached = affinityCache.get(cacheKey)
	if (cached) return cached
	const [authors, topics, connections] = await redis.hmget(
		keys.persMeta(userId),
		'authors',
		'topics',
		'connections',
	)
	const parsed = {
		authors: JSON.parse(authors ?? '{}'),
		topics: JSON.parse(topics ?? '{}'),
		connections: new Set<number>(JSON.parse(connections ?? '[]')),
	}
	if (affinityCache.size >= AFFINITY_CACHE_MAX) affinityCache.clear()
	affinityCache.set(cacheKey, parsed)
	return parsed
}

interface Scored {
	id: string
	score: number
}

function pairs(raw: string[]): { id: string; score: number }[] {
	const out: { id: string; score: number }[] = []
	for (let i = 0; i < raw.length; i += 2)
		out.push({ id: raw[i] as string, score: Number(raw[i + 1]) })
	return out
}

/** What ranking reads of a post: a candidate row, a cached post or a placement entry. */
type Rankable = Pick<CachedPost, 'created_at' | 'is_pinned' | 'user_id' | 'topic_ids'> &
	Partial<Pick<CachedPost, 'likes_count' | 'comments_count' | 'post_shared_count' | 'reach_count'>>

/** rankPost for one viewer; counts a placement entry does not carry count as none (a new post). */
function scoreOf(post: Rankable, isConnection: boolean, affinities: Affinities, now: number) {
	return rankPost(
		{
			createdAt: post.created_at,
			likes: post.likes_count ?? 0,
			comments: post.comments_count ?? 0,
			shares: post.post_shared_count ?? 0,
			reach: post.reach_count ?? 0,
			isPinned: post.is_pinned,
			isConnection,
			authorAffinity: affinities.authors[String(post.user_id)] ?? 0,
			topicAffinity: topicAffinityOf(post.topic_ids, affinities.topics),
		},
		now,
	)
}

/** The viewer's connection-feed posts newer than the recompute (newest CONN_FRESH_LIMIT). */
const freshConnections = (userId: number, computedAt: number) =>
	redis.zrevrangebyscore(
		keys.connFeed(userId),
		'+inf',
		`(${computedAt}`,
		'LIMIT',
		0,
		CONN_FRESH_LIMIT,
	)

type StreamEntry = [id: string, fields: string[]]

/** The placements scored with the stored meta, newest entry of each post kept. */
function scorePlacements(
	placed: StreamEntry[],
	affinities: Affinities,
	meta: Meta,
	newestFirst: boolean,
): Map<string, Scored> {
	const scored = new Map<string, Scored>()
	// A post placed again (edited) keeps its newest entry.
	const inOrder = newestFirst ? placed : [...placed].reverse()
	for (const [, fields] of inOrder) {
		const post = parsePlacement(fields[1] ?? '')
		if (scored.has(post.id)) continue
		const isConnection = affinities.connections.has(post.user_id)
		scored.set(post.id, {
			id: post.id,
			score: scoreOf(post, isConnection, affinities, meta.computedAt),
		})
	}
	return scored
}

/**
 * Posts placed since the stored ranking's position (all of them: fewer than
 * FRESH_LIMIT), and fresh connection-feed posts the stream does not carry, scored with
 * the stored meta (`connectionIds`: the connection posts it read, part of a kept page's
 * basis). More than FOLD_AT placements are folded into the stored ranking, so the next
 * read starts past them. Null when the read was too far behind: it caught up (or
 * recomputed) instead, and the stored ranking must be read again.
 */
async function freshEntries(
	viewer: Viewer,
	meta: Meta,
	known: Set<string>,
	mayCatchUp: boolean,
): Promise<{ fresh: Scored[]; connectionIds: string[] } | null> {
	const u = viewer.userId
	// Down to the position's own entry: finding it proves nothing between was trimmed.
	const [read, connectionIds] = await Promise.all([
		redis.xrevrange(
			keys.placements(viewer.communityId),
			'+',
			meta.streamId,
			'COUNT',
			FRESH_LIMIT + 1,
		) as Promise<StreamEntry[]>,
		freshConnections(u, meta.computedAt),
	])
	const reached = read[read.length - 1]?.[0] === meta.streamId
	const placed = reached ? read.slice(0, -1) : read
	// Complete: every placement past the position was read. Otherwise more wait behind
	// these, or the stream lost the position (trimmed past it).
	const complete = reached || (meta.streamId === '0-0' && read.length <= FRESH_LIMIT)
	if (!complete && mayCatchUp) {
		await catchUp(viewer, meta)
		return null
	}
	if (placed.length === 0 && connectionIds.length === 0) return { fresh: [], connectionIds }
	const affinities = await affinitiesOf(u, meta)
	const fromStream = scorePlacements(placed, affinities, meta, true)
	// Only past what was read: a position moved over unread placements loses their posts.
	if (complete && placed.length > FOLD_AT)
		await fold(u, meta, placed[0]?.[0] as string, [...fromStream.values()])
	const fresh = [...fromStream.values()].filter((e) => !known.has(e.id))
	// Connection posts the stream does not carry (connections-only visibility).
	const others = connectionIds.filter((id) => !fromStream.has(id) && !known.has(id))
	if (others.length === 0) return { fresh, connectionIds }
	const posts = await getPosts(viewer.communityId, others)
	for (const p of posts.values())
		fresh.push({
			id: p.id,
			score: scoreOf(p, affinities.connections.has(p.user_id), affinities, meta.computedAt),
		})
	return { fresh, connectionIds }
}

/** Ids of the stream compared as Redis orders them (`<ms>-<seq>`). */
function compareIds(a: string, b: string): number {
	const [am = 0, as = 0] = a.split('-').map(Number)
	const [bm = 0, bs = 0] = b.split('-').map(Number)
	return am - bm || as - bs
}

/**
 * Folds every placement past the position into the stored ranking, oldest first,
 * CATCH_UP_CHUNK at a time, each chunk moving the position to its last entry. When the
 * stream no longer holds what came after the position (trimmed past it), the ranking
 * is recomputed from Postgres instead. Each chunk is read with the stream's first entry
 * and length in one MULTI, so a trim between chunks is seen, never skipped.
 */
async function catchUp(viewer: Viewer, meta: Meta): Promise<void> {
	const stream = keys.placements(viewer.communityId)
	let position = meta.streamId
	// The stream holds at most about PLACEMENTS_KEPT: this many chunks reach its end.
	for (let i = 0; i <= PLACEMENTS_KEPT / CATCH_UP_CHUNK + 1; i++) {
		const answers = await redis
			.multi()
			.xrange(stream, '-', '+', 'COUNT', 1)
			.xlen(stream)
			.xrange(stream, `(${position}`, '+', 'COUNT', CATCH_UP_CHUNK)
			.exec()
		const [[, firstEntry], [, length], [, chunk]] = answers as [
			[unknown, StreamEntry[]],
			[unknown, number],
			[unknown, StreamEntry[]],
		]
		const oldest = firstEntry[0]?.[0]
		// Trimming takes the oldest entries first: the position's own entry (or an older
		// one) still there means nothing after it went. A stream that was empty at the
		// recompute ('0-0') is intact while it has never been trimmed (shorter than kept).
		const reaches =
			oldest === undefined ||
			compareIds(oldest, position) <= 0 ||
			(position === '0-0' && length < PLACEMENTS_KEPT)
		if (!reaches) {
			await recomputePersonalised(viewer.userId, viewer.communityId)
			return
		}
		if (chunk.length === 0) return
		const affinities = await affinitiesOf(viewer.userId, meta)
		const entries = [...scorePlacements(chunk, affinities, meta, false).values()]
		const last = chunk[chunk.length - 1]?.[0] as string
		// 0: a recompute replaced the ranking meanwhile; it reaches further than this.
		if ((await fold(viewer.userId, meta, last, entries)) === 0) return
		position = last
		if (chunk.length < CATCH_UP_CHUNK) return
	}
}

/** Adds scored placements to the stored ranking and moves its stream position to `streamId`. */
function fold(userId: number, meta: Meta, streamId: string, entries: Scored[]): Promise<number> {
	return (redis as unknown as { persFold: FoldCommand }).persFold(
		keys.persFeed(userId),
		keys.persMeta(userId),
		meta.computedAtRaw,
		streamId,
		STORED_MAX,
		KEEP_SECONDS,
		...entries.flatMap((e) => [e.score, e.id]),
	)
}

export interface PersonalisedQuery {
	page: number
	pageSize: number
	reorder: boolean
	recompute: boolean
	topicNames: string[]
}

const SHOWN: VisibilityRules = { visibilities: ['public', 'connections'] }

/** What the first round trip of a personalised page reads. */
export interface PersonalisedFirstRead {
	key: string
	kept: SharedPage | undefined
	meta: Meta | null
	/** The stored ranking's top page × page_size and its size; not read with a kept page. */
	ranking: Ranking | null
	blocked: Exclusions
	version: string
	/** The viewer's connection feed version (connection-feed.ts); null when the feed is not live. */
	connectionFeed: string | null
	/**
	 * With a kept page ranked while the connection feed was not live: the connection posts
	 * newer than its recompute (as freshEntries reads them).
	 */
	keptConnections: string[] | null
	keptFlags: ViewerFlags | null
}

interface Ranking {
	/** The meta the ranking was stored with (read in the same MULTI). */
	meta: Meta | null
	stored: Scored[]
	storedCount: number
}

/**
 * The meta, the stored ranking's first n (all of it for n = 0), best first, and its
 * size, in one MULTI: a recompute landing between separate reads would pair scores of
 * one recompute time with the fresh posts scored at another.
 */
const rankingOf = async (userId: number, n: number): Promise<Ranking> => {
	const feed = keys.persFeed(userId)
	const answers = (await redis
		.multi()
		.hmget(keys.persMeta(userId), 'computed_at', 'stream_id')
		.zrevrange(feed, 0, n - 1, 'WITHSCORES')
		.zcard(feed)
		.exec()) as [Error | null, unknown][]
	for (const [error] of answers) if (error) throw error
	const [[, meta], [, top], [, count]] = answers as [
		[null, (string | null)[]],
		[null, string[]],
		[null, number],
	]
	return { meta: parseMeta(meta), stored: pairs(top), storedCount: count }
}

/**
 * Sends the first round trip of a plain page (no reorder or topics): the stored
 * ranking's meta, the blocks, the community's feed version, `gate` and, with a kept
 * page, its posts' flags and the connection posts newer than its recompute, all
 * together; without one, the stored ranking's top and size. A kept page needs no more:
 * the stored ranking is only ever written with its meta (a recompute rewrites
 * `computed_at`, a fold moves `stream_id`), and a new placement moves the version.
 */
export async function startPersonalisedRead(
	viewer: Pick<Viewer, 'userId' | 'communityId'>,
	page: number,
	pageSize: number,
	gate: Promise<unknown> = Promise.resolve(),
): Promise<PersonalisedFirstRead> {
	const u = viewer.userId
	const key = `pers|${u}|${page}|${pageSize}`
	const kept = viewerPages.get(key)
	const since = kept?.byFeedVersion ? undefined : kept?.rankedAt
	const [keptMeta, ranking, { blocked, flags }, version, connectionFeed, keptConnections] =
		await Promise.all([
			kept ? metaOf(u) : null,
			kept ? null : rankingOf(u, page * pageSize),
			viewerState(viewer, kept),
			feedVersion(viewer.communityId),
			// Before any read of the connection feed: a change after it moves the version.
			connectionFeedVersion(u),
			since === undefined ? null : freshConnections(u, since),
			gate,
		])
	return {
		key,
		kept,
		meta: ranking ? ranking.meta : keptMeta,
		ranking,
		blocked,
		version,
		connectionFeed,
		keptConnections,
		keptFlags: flags,
	}
}

/** The stored ranking's first n (all of it for n = 0), best first. */
const topOf = async (userId: number, n: number) =>
	pairs(await redis.zrevrange(keys.persFeed(userId), 0, n - 1, 'WITHSCORES'))

/**
 * A page of the personalised feed as the `data` JSON: `{posts (each with its author as
 * user), users, total_count, page, page_size}`. Unfiltered, the stored top n merged with
 * the fresh posts is the top n of the whole feed (n doubles when hidden posts thin the
 * page out); a topic filter needs every candidate (and Postgres for the topics).
 * A plain page (`started`) is kept per viewer and served from its first round trip
 * while the version and everything it was ranked from stand.
 */
export async function readPersonalisedJson(
	viewer: Viewer,
	query: PersonalisedQuery,
	started?: Promise<PersonalisedFirstRead>,
): Promise<Buffer> {
	const u = viewer.userId
	if (query.reorder) await recomputePersonalised(u, viewer.communityId)
	else if (query.recompute) await queueRecompute(u, viewer.communityId)
	const offset = (query.page - 1) * query.pageSize
	const filtered = query.topicNames.length > 0
	// A page after a reorder or by topics is neither kept nor served kept (nor read early).
	const plain = !filtered && !query.reorder
	const first = await ((plain && started) ||
		startPersonalisedRead(viewer, query.page, query.pageSize))
	let { meta } = first
	const { kept, keptFlags, blocked } = first
	// What the page is ranked from besides the version: the stored ranking (by its meta),
	// the connection posts newer than the recompute — by the connection feed's version
	// while the feed is live, by their ids otherwise — the blocks and the role.
	const { connectionFeed } = first
	const basis = (connectionIds: string[] | null) =>
		`${meta?.computedAtRaw}|${meta?.streamId}|${connectionFeed ?? connectionIds?.join(',')}|${basisOf(viewer, [], blocked)}`
	if (
		plain &&
		kept &&
		keptFlags &&
		kept.byFeedVersion === (connectionFeed !== null) &&
		kept.version === first.version &&
		kept.basis === basis(first.keptConnections)
	)
		return keptPageBytes(viewer, kept, keptFlags, { embedUser: true, tail: kept.tail as string })
	const depth = filtered ? 0 : offset + query.pageSize
	let ranking = first.ranking && !filtered ? first.ranking : await rankingOf(u, depth)
	let fresh: Scored[] = []
	let connectionIds: string[] = []
	for (let tries = 0; ; tries++) {
		if (ranking.meta === null) {
			await recomputePersonalised(u, viewer.communityId)
			ranking = await rankingOf(u, depth)
		}
		meta = ranking.meta
		if (meta === null) break
		const known = new Set(ranking.stored.map((e) => e.id))
		const got = await freshEntries(viewer, meta, known, tries < CATCH_UP_TRIES)
		if (got) {
			;({ fresh, connectionIds } = got)
			break
		}
		// It caught up (or recomputed): the stored ranking now holds the backlog.
		ranking = await rankingOf(u, depth)
	}
	const { stored, storedCount } = ranking
	const merge = (entries: Scored[]) => {
		if (fresh.length === 0) return entries
		// A post dated ahead (created_at may be up to 5 min in the future) can be in both.
		const listed = new Set(entries.map((e) => e.id))
		return [...entries, ...fresh.filter((e) => !listed.has(e.id))].sort(byRank)
	}
	let entries = merge(stored)
	let total = storedCount + fresh.length
	if (filtered) {
		const topicIds = await enabledTopicIdsByNames(sql, viewer.communityId, query.topicNames)
		const tagged = await postIdsInAnyTopic(
			sql,
			viewer.communityId,
			entries.map((e) => e.id),
			topicIds,
		)
		entries = entries.filter((e) => tagged.has(e.id))
		total = entries.length
	}
	// The first n of the whole feed: the stored top n merged with the fresh posts.
	const window = (list: { id: string }[], n: number) => list.slice(0, n).map((e) => e.id)
	// A page cut from the first window alone depends on nothing deeper in the ranking: keepable.
	let deeper = false
	const more = async (n: number) => {
		deeper = true
		return window(filtered ? entries : merge(await topOf(u, n)), n)
	}
	const selection = await selectPage(
		viewer,
		window(entries, offset + query.pageSize),
		more,
		blocked,
		SHOWN,
		offset,
		query.pageSize,
	)
	const authors = await loadAuthors(viewer, selection.page)
	const tail = `,"total_count":${total},"page":${query.page},"page_size":${query.pageSize}}`
	const { bytes, rendered } = renderToKeep(viewer, selection, authors, { embedUser: true, tail })
	if (plain && !deeper)
		viewerPages.keep(first.key, {
			version: first.version,
			keptAt: Date.now(),
			page: selection.page,
			...authors,
			nextCursor: null,
			basis: basis(connectionIds),
			rankedAt: meta?.computedAt,
			byFeedVersion: connectionFeed !== null,
			tail,
			rendered,
		})
	return bytes
}
