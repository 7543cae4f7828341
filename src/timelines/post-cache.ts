// The Redis post, user and per-viewer caches, and the calls that keep them true
// after a write changes what a feed shows (made by feed-manager.ts). Postgres stays
// the source of truth; these run AFTER the transaction commits (a cache filled from an
// uncommitted read would be stale):
//
//   forgetPosts(communityId, postIds)      counters/pin/text changed (like, comment,
//                                           save count, pin): the next read
//                                           refills the post from Postgres.
//   setSeenCounts(communityId, counts)     impressions/reach changed (seen): updates
//                                           the cached post in place, no reload.
//   setViewerFlags('liked' | 'saved', [{ userId, postId, on }])
//                                           viewers' is_liked / is_saved changed
//                                           (one flags set per viewer: l<id>, s<id>).
//   topicsChanged(communityId, topicIds)   a topic was enabled, disabled or deleted:
//                                           re-places its posts in every feed at once.
//   forgetBlocks(userIds)                  a block between users was added/removed.
//   forgetUsers(communityId, userIds)      a user's name/image/deleted state changed.
//   placePosts(posts, formerTopicIds?, formerWidgetIds?)
//                                           a post's row, topics or widgets changed:
//                                           drops its cached value (the next read
//                                           fills it) and re-places it in feeds.
//   placeCreated(posts)                    posts just created: cached and placed,
//                                           one pipeline per community.
//   refreshPosts(communityId, postIds)     the same, loading the posts first.
//
// Modules reach these through feed-manager.ts only.
//
// None of these throw on a Redis failure: a failed invalidation is counted and logged
// (lib/redis-errors.ts), and the caches expire (TTL) so they converge on Postgres anyway.
// Cluster: every multi-key command and MULTI here keeps to one hash tag — a community's
// post and user caches share {c<id>}, a viewer's sets are single keys — and batches whose
// keys could span tags go through pipelineBySlot.
import { sql } from '../lib/db'
import { randomVersion } from '../lib/ids'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { quietly } from '../lib/redis-errors'
import { execOrThrow, pipelineBySlot } from '../lib/redis-slots'
import { indexPost, queueIndex } from './index-post'
import { bumpFeedVersion } from './page-cache'
import { postFromShared, presentFeedUser, presentStablePost, userFromFeed } from './present'
import {
	blockedUserIds,
	type CachedPost,
	type CachedUser,
	likedPostIds,
	loadPosts,
	loadUsers,
	postIdsInTopics,
	savedPostIds,
	topicStates,
} from './repo'

const POST_TTL_SECONDS = 600
const USER_TTL_SECONDS = 600
export const VIEWER_TTL_SECONDS = 86_400
/** Member present in a lazily loaded set once it holds everything Postgres has. */
export const LOADED = '.'

// A read that misses loads from Postgres and fills the cache; a write that commits
// meanwhile and drops the key before that fill lands would see its change overwritten
// by the older row until the TTL ends (seen as a stale likes_count). So every writer
// bumps the key's generation as it drops or stores it, a reader notes the generation
// before it loads, and the fill (cacheFill) happens only if it is unchanged.
redis.defineCommand('cacheFill', {
	numberOfKeys: 2,
	lua: `if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`,
})

type CacheFill = (
	key: string,
	generationKey: string,
	seen: string,
	value: string,
	ttl: number,
) => unknown

/**
 * Drops cached values (one community's, so one hash tag), bumps their generations and,
 * last in the same MULTI, the community's feed version (kept pages show them).
 */
async function dropCached(communityId: number, cacheKeys: string[], ttl: number): Promise<void> {
	const multi = redis.multi()
	for (const key of cacheKeys) {
		const generation = keys.cacheGeneration(key)
		multi.incr(generation).expire(generation, ttl).del(key)
	}
	await multi.incr(keys.feedVersion(communityId)).exec()
}

export async function forgetPosts(communityId: number, postIds: string[]): Promise<void> {
	if (postIds.length === 0) return
	await quietly('forgetPosts', () =>
		dropCached(
			communityId,
			postIds.map((id) => keys.postCache(communityId, id)),
			POST_TTL_SECONDS,
		),
	)
}

// Seen counters written into the cached post in place (seen is the busiest write; an
// eviction per call would keep busy posts reloading from Postgres). Both counters only
// grow, so the larger of cached and given wins: concurrent calls finishing out of
// order cannot lower them. The counters are not found by where presentSharedPost
// happens to put them: encodePost writes them itself as the value's fixed TAIL
// (seenTail), so the script only ever rewrites that tail — whatever the order of the
// other fields, and whatever look-alike keys attachments hold (their quotes are
// escaped). A cached value without the tail is dropped, as forgetPosts would.
const IMPRESSIONS = ',"impressions_count":'
const REACH = ',"reach_count":'
const seenTail = (impressions: number, reach: number) =>
	`${IMPRESSIONS}${impressions}${REACH}${reach}`

redis.defineCommand('postSetSeen', {
	numberOfKeys: 1,
	lua: `local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local head, imp, reach = string.match(v, '^(.*)${IMPRESSIONS}(%d+)${REACH}(%d+)$')
if not head then redis.call('DEL', KEYS[1]) return -1 end
if tonumber(ARGV[1]) > tonumber(imp) then imp = ARGV[1] end
if tonumber(ARGV[2]) > tonumber(reach) then reach = ARGV[2] end
redis.call('SET', KEYS[1], head .. '${IMPRESSIONS}' .. imp .. '${REACH}' .. reach, 'KEEPTTL')
return 1`,
})

type SetSeen = (key: string, impressions: number, reach: number) => unknown

export interface SeenCounts {
	id: string
	impressions_count: number
	reach_count: number
}

/** Writes exact impressions/reach (as just committed) into the cached posts; uncached posts stay uncached. */
export async function setSeenCounts(communityId: number, counts: SeenCounts[]): Promise<void> {
	if (counts.length === 0) return
	const keyOf = (c: SeenCounts) => keys.postCache(communityId, c.id)
	await quietly('setSeenCounts', () =>
		pipelineBySlot(redis, counts, keyOf, (pipeline, c) =>
			(pipeline as unknown as { postSetSeen: SetSeen }).postSetSeen(
				keyOf(c),
				c.impressions_count,
				c.reach_count,
			),
		),
	)
}

export async function forgetUsers(communityId: number, userIds: number[]): Promise<void> {
	if (userIds.length === 0) return
	await quietly('forgetUsers', () =>
		dropCached(
			communityId,
			userIds.map((id) => keys.userCache(communityId, id)),
			USER_TTL_SECONDS,
		),
	)
}

export async function forgetBlocks(userIds: number[]): Promise<void> {
	await quietly('forgetBlocks', () =>
		Promise.all(userIds.map((id) => redis.del(keys.viewerBlocks(id)))),
	)
}

export interface ViewerFlag {
	userId: number
	postId: string
	on: boolean
}

/** The member of a post in its viewer's flags set (keys.viewerFlags): l<id> liked, s<id> saved. */
export const flagMember = (kind: 'liked' | 'saved', postId: string) =>
	(kind === 'liked' ? 'l' : 's') + postId

/**
 * Adds or removes each post in its viewer's flags set, in the order given, in one
 * pipeline (a batch of likes); a set not loaded yet is filled from Postgres later.
 */
export async function setViewerFlags(kind: 'liked' | 'saved', flags: ViewerFlag[]): Promise<void> {
	await quietly('setViewerFlag', () =>
		pipelineBySlot(
			redis,
			flags,
			({ userId }) => keys.viewerFlags(userId),
			(pipeline, { userId, postId, on }) => {
				const key = keys.viewerFlags(userId)
				if (on) pipeline.sadd(key, flagMember(kind, postId)).expire(key, VIEWER_TTL_SECONDS)
				else pipeline.srem(key, flagMember(kind, postId))
				// After the change: a reader that finds the new version reads the set as changed.
				pipeline.set(keys.viewerFlagsVersion(userId), randomVersion(), 'EX', VIEWER_TTL_SECONDS)
			},
		),
	)
}

/**
 * Re-places these posts (as just written) in every feed and drops their cached copies.
 * True when Redis took it all.
 */
export function placePosts(
	posts: CachedPost[],
	formerTopicIds: string[] = [],
	formerWidgetIds: string[] = [],
): Promise<boolean> {
	return quietly('placePosts', async () => {
		await dropPosts(posts)
		await Promise.all(posts.map((post) => indexPost(post, formerTopicIds, formerWidgetIds)))
		// After the change is in Redis: a page computed from before it is not kept as current.
		await Promise.all([...new Set(posts.map((p) => p.community_id))].map(bumpFeedVersion))
	})
}

/**
 * Places posts their writer just created, each community's in ONE pipeline (its keys
 * share a hash tag, so also on a Cluster): every post cached (see below), then placed in
 * its sets, then the community's feed version bumped — Redis runs a pipeline's commands
 * in order, so a reader that finds a post in a set finds it cached, and a page computed
 * before the placement is not kept as current (bumpFeedVersion's INCR, queued here).
 *
 * Caching a writer's copy is safe here where it otherwise is not (dropPosts): nothing
 * could change a post before its creating commit, and any writer after it bumps the
 * generation, which makes this fill a no-op (cacheFill with no generation seen). So the
 * first feed reads after a post need no Postgres. True when Redis took it all.
 */
export function placeCreated(posts: CachedPost[]): Promise<boolean> {
	return quietly('placeCreated', async () => {
		await Promise.all(
			[...Map.groupBy(posts, (p) => p.community_id)].map(([communityId, list]) => {
				const pipeline = redis.pipeline()
				for (const post of list) {
					const key = keys.postCache(communityId, post.id)
					;(pipeline as unknown as { cacheFill: CacheFill }).cacheFill(
						key,
						keys.cacheGeneration(key),
						'',
						encodePost(post),
						POST_TTL_SECONDS,
					)
					queueIndex(pipeline, post)
				}
				pipeline.incr(keys.feedVersion(communityId))
				return execOrThrow(pipeline)
			}),
		)
	})
}

/** Refills the cache of these posts from Postgres and re-places them in every feed. */
export async function refreshPosts(communityId: number, postIds: string[]): Promise<void> {
	await quietly('refreshPosts', async () => {
		for (let i = 0; i < postIds.length; i += 500)
			await placePosts(await loadPosts(sql, communityId, postIds.slice(i, i + 500)))
	})
}

/** Topics changed state or were deleted; `alsoPostIds`: posts whose links to them are gone. */
export async function topicsChanged(
	communityId: number,
	topicIds: string[],
	alsoPostIds: string[] = [],
): Promise<void> {
	if (topicIds.length === 0) return
	await quietly('topicsChanged', async () => {
		// Posts of a deleted topic are only known to its sorted set now.
		const listed = await Promise.all(
			topicIds.map((id) => redis.zrange(keys.topicFeed(communityId, id), 0, -1)),
		)
		const fromDb = await postIdsInTopics(sql, topicIds)
		await redis.hdel(keys.catalog(communityId), ...topicIds.map((id) => `t:${id}`))
		const postIds = [...new Set([...listed.flat(), ...fromDb, ...alsoPostIds])]
		const stillThere = new Set((await topicStates(sql, communityId, topicIds)).map((t) => t.id))
		const gone = topicIds.filter((id) => !stillThere.has(id))
		if (gone.length > 0) await redis.del(...gone.map((id) => keys.topicFeed(communityId, id)))
		await refreshPosts(communityId, postIds)
		// Again: a read racing the change may have re-filled the old state meanwhile.
		await redis.hdel(keys.catalog(communityId), ...topicIds.map((id) => `t:${id}`))
		await bumpFeedVersion(communityId)
	})
}

// A cached post is two lines: a small header (what feed filters need and what the
// feed form leaves out) and the viewer-independent part of its feed form, already
// serialized. The hot feed path splices that string instead of parsing and
// re-serializing every post; the object form is rebuilt from both lines.
export type PostHeader = Pick<
	CachedPost,
	| 'user_id'
	| 'author_uuid'
	| 'community_id'
	| 'visibility'
	| 'is_deleted'
	| 'hidden'
	| 'is_pinned'
	| 'tagged_user_ids'
>

export interface PostView {
	header: PostHeader
	/** `"_id":...,"updated_at":...` — the shared feed fields without braces, as UTF-8. */
	fragment: Buffer
}

function encodePost(post: CachedPost): string {
	const {
		user_id,
		author_uuid,
		community_id,
		visibility,
		is_deleted,
		hidden,
		is_pinned,
		tagged_user_ids,
	} = post
	const header: PostHeader = {
		user_id,
		author_uuid,
		community_id,
		visibility,
		is_deleted,
		hidden,
		is_pinned,
		tagged_user_ids,
	}
	const stable = JSON.stringify(presentStablePost(post)).slice(1, -1)
	return `${JSON.stringify(header)}\n${stable}${seenTail(post.impressions_count, post.reach_count)}`
}

const NEWLINE = 10

export function decodeView(raw: Buffer): PostView {
	const newline = raw.indexOf(NEWLINE)
	return {
		header: JSON.parse(raw.toString('utf8', 0, newline)),
		fragment: raw.subarray(newline + 1),
	}
}

function decodeFull(raw: Buffer): CachedPost {
	const { header, fragment } = decodeView(raw)
	return postFromShared(header, JSON.parse(`{${fragment.toString()}}`))
}

/**
 * Drops the cached values of posts a writer changed (bumping their generations); the
 * next read fills them. A writer never stores its own copy: it was loaded before the
 * commit of a like or comment racing it, and would put an older count back.
 */
async function dropPosts(posts: CachedPost[]): Promise<void> {
	const keyOf = (post: CachedPost) => keys.postCache(post.community_id, post.id)
	await pipelineBySlot(redis, posts, keyOf, (pipeline, post) => {
		const generation = keys.cacheGeneration(keyOf(post))
		pipeline.incr(generation).expire(generation, POST_TTL_SECONDS).del(keyOf(post))
	})
}

/**
 * Cache-aside over MGET (posts and users alike): cached values of `ids`, misses loaded
 * from Postgres, returned and cached for `ttl` seconds unless a writer bumped their
 * generation meanwhile (see cacheFill); unknown ids are left out. `ids` are of one
 * community, so their keys share a hash tag.
 */
async function readThrough<K extends string | number, T>(
	ids: K[],
	keyOf: (id: K) => string,
	load: (missing: K[]) => Promise<(readonly [K, string])[]>,
	ttl: number,
	decode: (raw: Buffer) => T,
): Promise<Map<K, T>> {
	const found = new Map<K, T>()
	if (ids.length === 0) return found
	const cached = await redis.mgetBuffer(...ids.map(keyOf))
	const missing: K[] = []
	ids.forEach((id, i) => {
		const raw = cached[i]
		if (raw) found.set(id, decode(raw))
		else missing.push(id)
	})
	if (missing.length > 0) {
		const generations = await redis.mget(...missing.map((id) => keys.cacheGeneration(keyOf(id))))
		const seen = new Map(missing.map((id, i) => [id, generations[i] ?? '']))
		const encoded = await load(missing)
		for (const [id, value] of encoded) found.set(id, decode(Buffer.from(value)))
		await quietly('fill cache', () =>
			pipelineBySlot(
				redis,
				encoded,
				([id]) => keyOf(id),
				(pipeline, [id, value]) =>
					(pipeline as unknown as { cacheFill: CacheFill }).cacheFill(
						keyOf(id),
						keys.cacheGeneration(keyOf(id)),
						seen.get(id) ?? '',
						value,
						ttl,
					),
			),
		)
	}
	return found
}

function cachedPosts<T>(
	communityId: number,
	ids: string[],
	decode: (raw: Buffer) => T,
): Promise<Map<string, T>> {
	const load = async (missing: string[]) =>
		(await loadPosts(sql, communityId, missing)).map((post) => [post.id, encodePost(post)] as const)
	return readThrough(ids, (id) => keys.postCache(communityId, id), load, POST_TTL_SECONDS, decode)
}

/** Posts by id from the cache, missing ones from Postgres (and then cached). Unknown ids are left out. */
export function getPosts(communityId: number, ids: string[]): Promise<Map<string, CachedPost>> {
	return cachedPosts(communityId, ids, decodeFull)
}

/** The pre-serialized feed form of posts (the hot path of feed pages). */
export function getPostViews(communityId: number, ids: string[]): Promise<Map<string, PostView>> {
	return cachedPosts(communityId, ids, decodeView)
}

// A cached user is its feed form (presentFeedUser) serialized; the object form is
// read back from it, and feed pages splice the bytes as they are.
function cachedUsers<T>(
	communityId: number,
	ids: number[],
	decode: (raw: Buffer) => T,
): Promise<Map<number, T>> {
	const load = async (missing: number[]) =>
		(await loadUsers(sql, communityId, missing)).map(
			(user) => [user.id, JSON.stringify(presentFeedUser(user))] as const,
		)
	return readThrough(ids, (id) => keys.userCache(communityId, id), load, USER_TTL_SECONDS, decode)
}

export function getUsers(communityId: number, ids: number[]): Promise<Map<number, CachedUser>> {
	return cachedUsers(communityId, ids, (raw) => userFromFeed(JSON.parse(raw.toString())))
}

/** Users in their serialized feed form (the hot path of feed pages). */
export function getUserViews(communityId: number, ids: number[]): Promise<Map<number, Buffer>> {
	return cachedUsers(communityId, ids, (raw) => raw)
}

async function loadSet(key: string, load: () => Promise<(string | number)[]>): Promise<void> {
	const members = await load()
	await redis
		.multi()
		.sadd(key, LOADED, ...members.map(String))
		.expire(key, VIEWER_TTL_SECONDS)
		.exec()
}

/**
 * The viewer's lazily loaded sets — blocks, then the flags — in that order. They share
 * the viewer's hash tag ({u<id>}), so a script over the viewer's other keys may read them
 * too (SMEMBERS of the first, SMISMEMBER flagQuestions(postIds) of the second) and hand
 * the answers to blocksFrom / flagsFrom.
 */
export const viewerSetKeys = (userId: number) => [
	keys.viewerBlocks(userId),
	keys.viewerFlags(userId),
]

export interface ViewerFlags {
	liked: Set<string>
	saved: Set<string>
}

/** Blocked user ids from SMEMBERS of the blocks set; null while it is not loaded. */
export function blocksFrom(members: string[]): Set<number> | null {
	if (!members.includes(LOADED)) return null
	return new Set(members.filter((m) => m !== LOADED).map(Number))
}

/** The flags of `postIds` from the answers to SMISMEMBER flagQuestions(postIds); null while the set is not loaded. */
export function flagsFrom(postIds: string[], answers: number[]): ViewerFlags | null {
	if (!answers[0]) return null
	const liked = new Set<string>()
	const saved = new Set<string>()
	postIds.forEach((id, i) => {
		if (answers[1 + i] === 1) liked.add(id)
		if (answers[1 + postIds.length + i] === 1) saved.add(id)
	})
	return { liked, saved }
}

/** The SMISMEMBER arguments that ask a viewer's flags set for `postIds`: LOADED, each liked, each saved. */
export function flagQuestions(postIds: string[]): string[] {
	const questions = [LOADED]
	for (const id of postIds) questions.push(flagMember('liked', id))
	for (const id of postIds) questions.push(flagMember('saved', id))
	return questions
}

/** Which of `postIds` the viewer liked and saved: one SMISMEMBER, a load from Postgres on first use. */
export async function viewerFlags(userId: number, postIds: string[]): Promise<ViewerFlags> {
	const key = keys.viewerFlags(userId)
	const questions = flagQuestions(postIds)
	let answers = await redis.smismember(key, ...questions)
	if (!answers[0]) {
		await loadSet(key, async () => {
			const [liked, saved] = await Promise.all([
				likedPostIds(sql, userId),
				savedPostIds(sql, userId),
			])
			return [
				...liked.map((id) => flagMember('liked', id)),
				...saved.map((id) => flagMember('saved', id)),
			]
		})
		answers = await redis.smismember(key, ...questions)
	}
	return flagsFrom(postIds, answers) ?? { liked: new Set(), saved: new Set() }
}

/** User ids hidden from the viewer by a block in either direction. */
export async function viewerBlocks(userId: number): Promise<Set<number>> {
	const key = keys.viewerBlocks(userId)
	const blocked = blocksFrom(await redis.smembers(key))
	if (blocked) return blocked
	await loadSet(key, () => blockedUserIds(sql, userId))
	return blocksFrom(await redis.smembers(key)) ?? new Set()
}
