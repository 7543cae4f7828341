// The connection feed engine: `feed:{u<id>}:conn` holds the newest posts (score
// created_at, at most 1,000) of everyone the user follows. Fan-out writes into it
// only while `feed:{u<id>}:conn:live` exists; the marker lives 7 days from the last
// read, so inactive users cost nothing and are rebuilt from Postgres on return.
import { sql } from '../lib/db'
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
import { type ViewerFlags, viewerState } from './post-cache'
import type { Viewer } from './present'
import { keptPageBytes, loadAuthors, renderToKeep, selectPage } from './render'

export const CONN_FEED_MAX = 1000
export const MERGE_RECENT = 200
export const LIVE_SECONDS = 7 * 86_400

// ZADD then trim, only into a live feed: one round trip per follower, one slot ({u<id>}).
redis.defineCommand('connFeedAdd', {
	numberOfKeys: 2,
	lua: `if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('zadd', KEYS[2], ARGV[1], ARGV[2])
if redis.call('zcard', KEYS[2]) > tonumber(ARGV[3]) then redis.call('zremrangebyrank', KEYS[2], 0, -tonumber(ARGV[3]) - 1) end
return 1`,
})

type AddCommand = (
	live: string,
	feed: string,
	score: number,
	postId: string,
	max: number,
) => unknown
export interface ConnFeedPipeline {
	connFeedAdd: AddCommand
}

/** Queues the add of one post to one follower's feed on a pipeline. */
export function queueAdd(
	pipeline: unknown,
	followerId: number,
	postId: string,
	score: number,
): void {
	;(pipeline as ConnFeedPipeline).connFeedAdd(
		keys.connLive(followerId),
		keys.connFeed(followerId),
		score,
		postId,
		CONN_FEED_MAX,
	)
}

async function addEntries(userId: number, entries: FeedEntry[]): Promise<void> {
	if (entries.length === 0) return
	const feed = keys.connFeed(userId)
	const args = entries.flatMap((e) => [e.created_at, e.id])
	await redis
		.multi()
		.zadd(feed, ...args)
		.zremrangebyrank(feed, 0, -CONN_FEED_MAX - 1)
		.exec()
}

/** A new connection: the follower's live feed gets the author's recent posts now. */
export async function followAuthor(followerId: number, authorId: number): Promise<void> {
	try {
		if (!(await redis.exists(keys.connLive(followerId)))) return
		await addEntries(followerId, await recentPostsOfAuthor(sql, authorId, MERGE_RECENT))
	} catch (error) {
		// The feed is derived: dropping its marker makes the next read rebuild it.
		log.error({ err: error, followerId, authorId }, 'connection feed merge failed')
		await redis.del(keys.connLive(followerId)).catch(() => {})
	}
}

/** A removed connection or a block: the author's posts leave the follower's feed. */
export async function unfollowAuthor(followerId: number, authorId: number): Promise<void> {
	try {
		const ids = await redis.zrange(keys.connFeed(followerId), 0, -1)
		const theirs = await postIdsOfAuthor(sql, authorId, ids)
		if (theirs.length > 0) await redis.zrem(keys.connFeed(followerId), ...theirs)
	} catch (error) {
		log.error({ err: error, followerId, authorId }, 'connection feed removal failed')
		await redis.del(keys.connLive(followerId), keys.connFeed(followerId)).catch(() => {})
	}
}

/**
 * Marks the feed live for 7 more days and rebuilds it from Postgres when it was not
 * (new or inactive user). The marker is set before reading Postgres, so a fan-out
 * running meanwhile writes into the new feed instead of being skipped.
 */
export async function ensureLiveFeed(userId: number, communityId: number): Promise<void> {
	const previous = await redis.set(keys.connLive(userId), '1', 'EX', LIVE_SECONDS, 'GET')
	if (previous !== null) return
	await redis.del(keys.connFeed(userId))
	await addEntries(userId, await connectionFeedFromDb(sql, userId, CONN_FEED_MAX))
	await markFeedRead(sql, userId, communityId, Date.now())
}

/** Refreshes the live marker for 7 more days; false when it is missing (the feed needs a rebuild). */
async function touchLiveFeed(userId: number): Promise<boolean> {
	return (await redis.expire(keys.connLive(userId), LIVE_SECONDS)) === 1
}

const SHOWN: VisibilityRules = { visibilities: ['public', 'connections'] }

/** What the first round trip of a connection page reads. */
export interface ConnectionFirstRead {
	key: string
	kept: SharedPage | undefined
	live: boolean
	/** The first page × page_size ids of the feed, and its size. */
	first: string[]
	total: number
	blocked: Set<number>
	version: string
	keptFlags: ViewerFlags | null
	/** The check left out of the round trip because a page was kept: run before any other page. */
	check: (() => Promise<unknown>) | null
}

/**
 * Sends the first round trip of a page: `gate`, the marker refresh, the window of ids,
 * the feed's size, the blocks, the community's feed version and the flags of the
 * viewer's kept page (page-cache.ts), all together. `check` (the feature check) goes
 * with them unless a page is kept: a kept page was computed under the check, and what
 * changes its answer moves the feed version, so it is run only when the kept page does
 * not stand (readConnectionFeedJson).
 */
export async function startConnectionRead(
	viewer: Pick<Viewer, 'userId' | 'communityId'>,
	page: number,
	pageSize: number,
	gate: Promise<unknown> = Promise.resolve(),
	check: () => Promise<unknown> = () => Promise.resolve(),
): Promise<ConnectionFirstRead> {
	const feed = keys.connFeed(viewer.userId)
	const key = `conn|${viewer.userId}|${page}|${pageSize}`
	const kept = viewerPages.get(key)
	const [live, first, total, { blocked, flags }, version] = await Promise.all([
		touchLiveFeed(viewer.userId),
		redis.zrevrange(feed, 0, page * pageSize - 1),
		redis.zcard(feed),
		viewerState(
			viewer.userId,
			kept?.page.map((p) => p.id),
		),
		feedVersion(viewer.communityId),
		gate,
		kept ? undefined : check(),
	])
	return {
		key,
		kept,
		live,
		first,
		total,
		blocked,
		version,
		keptFlags: flags,
		check: kept ? check : null,
	}
}

/**
 * A page of the connection feed as the `data` JSON: `{feed, users, total_count, page,
 * page_size}`. The first round trip (`started` early by the route, or sent here) holds
 * all a kept page needs: while the version, the window of ids and the blocks are those
 * it was computed from, it is served as it is. A missing marker rebuilds the feed first.
 */
export async function readConnectionFeedJson(
	viewer: Viewer,
	page: number,
	pageSize: number,
	started: Promise<ConnectionFirstRead>,
): Promise<Buffer> {
	const feed = keys.connFeed(viewer.userId)
	const offset = (page - 1) * pageSize
	const window = (n: number) => redis.zrevrange(feed, 0, n - 1)
	let { key, kept, live, first, total, blocked, version, keptFlags, check } = await started
	const tail = () => `,"total_count":${total},"page":${page},"page_size":${pageSize}}`
	let basis = basisOf(viewer, first, blocked)
	if (live && kept && keptFlags && kept.version === version && kept.basis === basis)
		return keptPageBytes(viewer, kept, keptFlags, { listKey: 'feed', tail: tail() })
	if (check) await check()
	if (!live) {
		await ensureLiveFeed(viewer.userId, viewer.communityId)
		;[first, total] = await Promise.all([window(offset + pageSize), redis.zcard(feed)])
		basis = basisOf(viewer, first, blocked)
	}
	// A page cut from the first window alone depends on nothing deeper in the feed: keepable.
	let deeper = false
	const more = (n: number) => {
		deeper = true
		return window(n)
	}
	const selection = await selectPage(viewer, first, more, blocked, SHOWN, offset, pageSize)
	const authors = await loadAuthors(viewer, selection.page)
	const { bytes, rendered } = renderToKeep(viewer, selection, authors, {
		listKey: 'feed',
		tail: tail(),
	})
	if (!deeper)
		viewerPages.keep(key, {
			version,
			keptAt: Date.now(),
			page: selection.page,
			...authors,
			nextCursor: null,
			basis,
			rendered,
		})
	return bytes
}
