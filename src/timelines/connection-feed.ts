// The connection feed engine: `feed:{u<id>}:conn` holds the newest posts (score
// created_at, at most 1,000) of everyone the user follows. Fan-out writes into it
// only while `feed:{u<id>}:conn:live` exists; the marker lives 7 days from the last
// read, so inactive users cost nothing and are rebuilt from Postgres on return.
import { sql } from '../lib/db'
import { randomVersion } from '../lib/ids'
import { keys } from '../lib/keys'
import { log } from '../lib/log'
import { redis } from '../lib/redis'
import {
	connectionFeedFromDb,
	type FeedEntry,
	markFeedRead,
	postIdsOfAuthor,
	recentPostsOfAuthor,
} from './connection-repo'
import type { VisibilityRules } from './hydrate'
import { basisOf, feedVersion, type SharedPage, viewerPages } from './page-cache'
import type { Viewer } from './present'
import { keptPageBytes, loadAuthors, renderToKeep, selectPage } from './render'
import type { Exclusions, ViewerFlags } from './viewer-state'
import { viewerState } from './viewer-state'

export const CONN_FEED_MAX = 1000
export const MERGE_RECENT = 200
export const LIVE_SECONDS = 7 * 86_400

// Every change of a live feed moves its version (the live marker's value), so a page
// kept for the viewer (page-cache.ts) stands while that value and the community's feed
// version do: one GETEX checks both the marker and the feed, where reading the window of
// ids and the count cost two more commands and 20 ids to decode on every page.
// The scripts touch one slot ({u<id>}).
redis.defineCommand('connFeedAdd', {
	numberOfKeys: 2,
	lua: `if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('zadd', KEYS[2], unpack(ARGV, 2))
if redis.call('zcard', KEYS[2]) > tonumber(ARGV[1]) then redis.call('zremrangebyrank', KEYS[2], 0, -tonumber(ARGV[1]) - 1) end
redis.call('incr', KEYS[1])
return 1`,
})

// Removals go in whether or not the feed is live (a feed not live is rebuilt before it is read).
redis.defineCommand('connFeedRemove', {
	numberOfKeys: 2,
	lua: `local removed = redis.call('zrem', KEYS[2], unpack(ARGV))
if removed > 0 and redis.call('exists', KEYS[1]) == 1 then redis.call('incr', KEYS[1]) end
return removed`,
})

type FeedCommand = (live: string, feed: string, ...args: (string | number)[]) => Promise<number>
interface ConnFeedCommands {
	connFeedAdd: FeedCommand
	connFeedRemove: FeedCommand
}
const commands = (target: unknown) => target as ConnFeedCommands

/** Queues the add of one post to one follower's feed (when live) on a pipeline. */
export function queueAdd(
	pipeline: unknown,
	followerId: number,
	postId: string,
	score: number,
): void {
	commands(pipeline).connFeedAdd(
		keys.connLive(followerId),
		keys.connFeed(followerId),
		CONN_FEED_MAX,
		score,
		postId,
	)
}

/** Queues the removal of one post from one follower's feed on a pipeline. */
export function queueRemove(pipeline: unknown, followerId: number, postId: string): void {
	commands(pipeline).connFeedRemove(keys.connLive(followerId), keys.connFeed(followerId), postId)
}

async function addEntries(userId: number, entries: FeedEntry[]): Promise<void> {
	if (entries.length === 0) return
	await commands(redis).connFeedAdd(
		keys.connLive(userId),
		keys.connFeed(userId),
		CONN_FEED_MAX,
		...entries.flatMap((e) => [e.created_at, e.id]),
	)
}

/** A new connection: the follower's live feed gets the author's recent posts now. */
export async function followAuthor(
	communityId: number,
	followerId: number,
	authorId: number,
): Promise<void> {
	try {
		if (!(await redis.exists(keys.connLive(followerId)))) return
		await addEntries(
			followerId,
			await recentPostsOfAuthor(sql, communityId, authorId, MERGE_RECENT),
		)
	} catch (error) {
		// The feed is derived: dropping its marker makes the next read rebuild it.
		log.error({ err: error, followerId, authorId }, 'connection feed merge failed')
		await redis.del(keys.connLive(followerId)).catch(() => {})
	}
}

/** A removed connection or a block: the author's posts leave the follower's feed. */
export async function unfollowAuthor(
	communityId: number,
	followerId: number,
	authorId: number,
): Promise<void> {
	try {
		const ids = await redis.zrange(keys.connFeed(followerId), 0, -1)
		const theirs = await postIdsOfAuthor(sql, communityId, authorId, ids)
		if (theirs.length > 0)
			await commands(redis).connFeedRemove(
				keys.connLive(followerId),
				keys.connFeed(followerId),
				...theirs,
			)
	} catch (error) {
		log.error({ err: error, followerId, authorId }, 'connection feed removal failed')
		await redis.del(keys.connLive(followerId), keys.connFeed(followerId)).catch(() => {})
	}
}

/**
 * Marks the feed live for 7 more days and rebuilds it from Postgres when it was not
 * (new or inactive user). The marker is set before reading Postgres, so a fan-out
 * running meanwhile writes into the new feed instead of being skipped. A new marker
 * starts at a random version, so a page kept before it can never match a version after.
 */
export async function ensureLiveFeed(userId: number, communityId: number): Promise<void> {
	const previous = await redis.set(
		keys.connLive(userId),
		randomVersion(),
		'EX',
		LIVE_SECONDS,
		'GET',
	)
	if (previous !== null) return
	await redis.del(keys.connFeed(userId))
	await addEntries(userId, await connectionFeedFromDb(sql, communityId, userId, CONN_FEED_MAX))
	await markFeedRead(sql, userId, communityId, Date.now())
}

/** The feed's version; null when it is not live. */
export const connectionFeedVersion = (userId: number): Promise<string | null> =>
	redis.get(keys.connLive(userId))

/** The feed's version, its marker refreshed for 7 more days; null when not live (it needs a rebuild). */
const touchLiveFeed = (userId: number): Promise<string | null> =>
	redis.getex(keys.connLive(userId), 'EX', LIVE_SECONDS)

const SHOWN: VisibilityRules = { visibilities: ['public', 'connections'] }

/** What the first round trip of a connection page reads. */
export interface ConnectionFirstRead {
	key: string
	kept: SharedPage | undefined
	/** The feed's version (its live marker); null when the feed is not live. */
	feedVersion: string | null
	/** Without a kept page: the first page × page_size ids of the feed, and its size. */
	window: { first: string[]; total: number } | null
	blocked: Exclusions
	communityVersion: string
	keptFlags: ViewerFlags | null
	/** The check left out of the round trip because a page was kept: run before any other page. */
	check: (() => Promise<unknown>) | null
}

/**
 * Sends the first round trip of a page: `gate`, the marker refresh (which reads the
 * feed's version), the blocks, the community's feed version and the flags of the
 * viewer's kept page (page-cache.ts), all together; without a kept page, the window of
 * ids and the feed's size too. `check` (the feature check) goes with them unless a page
 * is kept: a kept page was computed under the check, and what changes its answer moves
 * the feed version, so it is run only when the kept page does not stand
 * (readConnectionFeedJson).
 */
export async function startConnectionRead(
	viewer: Pick<Viewer, 'userId' | 'communityId'>,
	page: number,
	pageSize: number,
	gate: Promise<unknown> = Promise.resolve(),
	check: () => Promise<unknown> = () => Promise.resolve(),
): Promise<ConnectionFirstRead> {
	const key = `conn|${viewer.userId}|${page}|${pageSize}`
	const kept = viewerPages.get(key)
	const [version, window, { blocked, flags }, communityVersion] = await Promise.all([
		// First: a change after it moves the version, so the window is never newer than it.
		touchLiveFeed(viewer.userId),
		kept ? null : windowOf(viewer.userId, page * pageSize),
		viewerState(viewer, kept),
		feedVersion(viewer.communityId),
		gate,
		kept ? undefined : check(),
	])
	return {
		key,
		kept,
		feedVersion: version,
		window,
		blocked,
		communityVersion,
		keptFlags: flags,
		check: kept ? check : null,
	}
}

/** The feed's first n ids, newest first, and its size. */
async function windowOf(userId: number, n: number) {
	const feed = keys.connFeed(userId)
	const [first, total] = await Promise.all([redis.zrevrange(feed, 0, n - 1), redis.zcard(feed)])
	return { first, total }
}

/**
 * A page of the connection feed as the `data` JSON: `{feed, users, total_count, page,
 * page_size}`. The first round trip (`started` early by the route, or sent here) holds
 * all a kept page needs: while the feed's version, the community's and the blocks are
 * those it was computed from, it is served as it is. A missing marker rebuilds the feed first.
 */
export async function readConnectionFeedJson(
	viewer: Viewer,
	page: number,
	pageSize: number,
	started: Promise<ConnectionFirstRead>,
): Promise<Buffer> {
	const offset = (page - 1) * pageSize
	const first = await started
	const { key, kept, keptFlags, blocked, check } = first
	const basis = basisOf(viewer, [], blocked)
	const versionOf = (feed: string | null) => `${first.communityVersion}|${feed}`
	if (
		first.feedVersion !== null &&
		kept &&
		keptFlags &&
		kept.version === versionOf(first.feedVersion) &&
		kept.basis === basis
	)
		return keptPageBytes(viewer, kept, keptFlags, { listKey: 'feed', tail: kept.tail as string })
	if (check) await check()
	let { feedVersion: feed, window } = first
	if (feed === null) {
		await ensureLiveFeed(viewer.userId, viewer.communityId)
		;[feed, window] = await Promise.all([
			connectionFeedVersion(viewer.userId),
			windowOf(viewer.userId, offset + pageSize),
		])
	} else if (window === null) window = await windowOf(viewer.userId, offset + pageSize)
	// A page cut from the first window alone depends on nothing deeper in the feed: keepable.
	let deeper = false
	const more = (n: number) => {
		deeper = true
		return redis.zrevrange(keys.connFeed(viewer.userId), 0, n - 1)
	}
	const selection = await selectPage(viewer, window.first, more, blocked, SHOWN, offset, pageSize)
	const authors = await loadAuthors(viewer, selection.page)
	const tail = `,"total_count":${window.total},"page":${page},"page_size":${pageSize}}`
	const { bytes, rendered } = renderToKeep(viewer, selection, authors, { listKey: 'feed', tail })
	if (!deeper && feed !== null)
		viewerPages.keep(key, {
			version: versionOf(feed),
			keptAt: Date.now(),
			page: selection.page,
			...authors,
			nextCursor: null,
			basis,
			tail,
			rendered,
		})
	return bytes
}
