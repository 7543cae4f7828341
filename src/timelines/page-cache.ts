// Shared pages of the universal feed (issue 14). Page 1 of a community's feed, or of a
// topic, is the same for every viewer without blocks except is_liked, is_saved and
// menu_items, so each process keeps the selected posts of a page (their cached bytes)
// and its authors, and a hot page costs one Redis round trip — the community's feed
// version, the viewer's blocks and flags together — and a splice.
//
// Never stale: every writer of what a page shows (a placement in the sorted sets, a
// dropped post or user cache, a topic change, a rebuild) bumps `feed:{c<id>}:version`
// AFTER its change is in Redis, and a page is kept under the version read BEFORE it was
// computed; a page whose version is not the current one is computed again. Seen
// counters (rewritten in place at every impression) do not bump it: a kept page is at
// most MAX_AGE_MS old, so they lag by at most that. The bounded store (KeptPages) also
// keeps the notification feed's rendered pages 1 (modules/activity-feed/kept-page.ts).
//
// A viewer's own page (connection and personalised feeds) is kept the same way under a
// key naming the viewer, with its `basis`: what the page was computed from besides the
// version (the ids of the viewer's sorted set it was cut from, the blocks). A read whose
// first round trip finds the same version and the same basis serves it.
import { randomVersion } from '../lib/ids'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import type { PostView } from './post-encoding'
import type { Viewer } from './present'
import type { Exclusions, FlagsHolder } from './viewer-state'

export const MAX_AGE_MS = 1000

/** What a kept page carries whatever else it holds: when it was computed. */
export interface Kept {
	keptAt: number
}

/**
 * Pages kept in this process, at most MAX_AGE_MS old, bounded by count and by the bytes
 * `sizeOf` says each holds on to: evicted oldest first past either bound. The caller
 * checks a kept page's versions against the ones it reads in its round trip.
 */
export class KeptPages<T extends Kept> {
	private pages = new Map<string, T>()
	private sizes = new Map<string, number>()
	private keptBytes = 0

	constructor(
		private readonly sizeOf: (page: T) => number,
		private readonly maxPages = 2000,
		private readonly maxBytes = 64 * 1024 * 1024,
	) {}

	private forget(key: string): void {
		this.keptBytes -= this.sizes.get(key) ?? 0
		this.sizes.delete(key)
		this.pages.delete(key)
	}

	/** A kept page, whatever its version (the caller reads the version in the same round trip). */
	get(key: string): T | undefined {
		const page = this.pages.get(key)
		if (page && Date.now() - page.keptAt > MAX_AGE_MS) {
			this.forget(key)
			return undefined
		}
		return page
	}

	keep(key: string, page: T): void {
		const size = this.sizeOf(page)
		if (size > this.maxBytes / 16) return // a page that heavy is not worth keeping
		this.forget(key)
		// Oldest first out (a Map iterates in insertion order).
		while (this.pages.size >= this.maxPages || this.keptBytes + size > this.maxBytes)
			this.forget(this.pages.keys().next().value as string)
		this.pages.set(key, page)
		this.sizes.set(key, size)
		this.keptBytes += size
	}
}

/** A kept page of posts; as a FlagsHolder it remembers its viewers' flags (viewer-state.ts). */
export interface SharedPage extends Kept, FlagsHolder {
	version: string
	page: { id: string; view: PostView }[]
	/** Author id → uuid and feed form, as the page shows them. */
	authors: Map<number, string>
	users: Map<number, Buffer>
	nextCursor: string | null
	/** What else the page was computed from (a viewer's page); served only while it is unchanged. */
	basis?: string
	/** The fields a viewer's page closes with (total_count, paging), as served. */
	tail?: string
	/**
	 * The page's bytes as served (render.ts keptPageBytes): the only part of a kept page
	 * that changes after it is kept. A shared page keeps many viewers' variants, a
	 * viewer's page one.
	 */
	rendered: Renderings
	/** A personalised page: the recompute time it was ranked at (its fresh connection posts are read from it). */
	rankedAt?: number
	/**
	 * A personalised page ranked while the viewer's connection feed was live: its basis
	 * holds the feed's version, so its fresh connection posts need not be read again.
	 */
	byFeedVersion?: boolean
}

/**
 * A kept page's bytes as served, by render key (what they were rendered with besides the
 * page itself: flags, menus, tail): at most `max`, the oldest dropped first.
 */
export class Renderings {
	private byKey = new Map<string, Buffer>()

	constructor(readonly max: number) {}

	/** The bytes under `key`, rendered and kept when there are none yet. */
	of(key: string, render: () => Buffer): Buffer {
		let bytes = this.byKey.get(key)
		if (bytes) return bytes
		bytes = render()
		if (this.byKey.size >= this.max) this.byKey.delete(this.byKey.keys().next().value as string)
		this.byKey.set(key, bytes)
		return bytes
	}
}

/** How many renderings of one shared universal page are kept (most viewers of a hot page share one). */
export const SHARED_RENDERINGS = 4

/**
 * The bytes a kept page holds on to: its posts' fragments and its authors' forms, and
 * as many renderings as it may keep (each about as heavy as those).
 */
function sizeOfPage(page: SharedPage): number {
	let bytes = 0
	for (const { view } of page.page) bytes += view.fragment.length
	for (const user of page.users.values()) bytes += user.length
	return bytes * (1 + page.rendered.max)
}

/** The universal feed's pages, shared by every viewer without blocks. */
export const sharedPages = new KeptPages<SharedPage>(sizeOfPage)

/**
 * The connection and personalised feeds' pages, one per viewer: a store of their own, so
 * thousands of viewers' pages never evict the few pages that every viewer shares.
 */
export const viewerPages = new KeptPages<SharedPage>(sizeOfPage)

/** What a viewer's page is computed from besides the feed version: its window of ids, blocks and role. */
export const basisOf = (viewer: Viewer, ids: string[], blocked: Exclusions): string =>
	`${viewer.isCm}|${[...blocked].sort((a, b) => a - b).join(',')}|${[...(blocked.posts ?? [])].sort().join(',')}|${ids.join(',')}`

/**
 * The community's feed version. A missing key (new community, Redis flushed) gets a
 * random start, so a page kept before a flush can never match a version after it.
 */
export async function feedVersion(communityId: number): Promise<string> {
	const key = keys.feedVersion(communityId)
	const version = await redis.get(key)
	if (version !== null) return version
	await redis.set(key, randomVersion(), 'NX')
	return (await redis.get(key)) ?? ''
}

/** Tells readers of the community's kept pages that a change they show is in Redis now. */
export async function bumpFeedVersion(communityId: number): Promise<void> {
	await redis.incr(keys.feedVersion(communityId))
}
