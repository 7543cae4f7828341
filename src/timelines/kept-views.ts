// Post views and users' feed forms by id, kept in this process for pages that embed
// posts among other things (the notification feed): the rule of the shared pages
// (page-cache.ts) — per community, under the feed version read BEFORE they were loaded,
// at most MAX_AGE_MS old (seen counters change in place without a version bump) — so a
// page of posts and users seen a moment ago costs no Redis call.
import { MAX_AGE_MS } from './page-cache'
import { getPostViews } from './post-cache'
import type { PostView } from './post-encoding'
import { getUserViews } from './user-cache'

// At most this many posts and users each per community, and communities, are kept.
const MAX_VIEWS = 5000
const MAX_VIEW_COMMUNITIES = 1000

interface KeptViews {
	version: string
	keptAt: number
	posts: Map<string, PostView>
	users: Map<number, Buffer>
}

const views = new Map<number, KeptViews>()

function viewsOf(communityId: number, version: string): KeptViews {
	const kept = views.get(communityId)
	if (kept && kept.version === version && Date.now() - kept.keptAt <= MAX_AGE_MS) return kept
	views.delete(communityId)
	if (views.size >= MAX_VIEW_COMMUNITIES) views.delete(views.keys().next().value as number)
	const fresh = { version, keptAt: Date.now(), posts: new Map(), users: new Map() }
	views.set(communityId, fresh)
	return fresh
}

/** The entries of `ids` from `kept`, the others loaded and kept (while there is room). */
async function throughKept<K, V>(
	kept: Map<K, V>,
	ids: K[],
	load: (missing: K[]) => Promise<Map<K, V>>,
): Promise<Map<K, V>> {
	const found = new Map<K, V>()
	const missing: K[] = []
	for (const id of ids) {
		const value = kept.get(id)
		if (value) found.set(id, value)
		else missing.push(id)
	}
	if (missing.length === 0) return found
	for (const [id, value] of await load(missing)) {
		found.set(id, value)
		if (kept.size < MAX_VIEWS) kept.set(id, value)
	}
	return found
}

/**
 * Post views and users' feed forms by id as the caches hold them (getPostViews,
 * getUserViews), served from this process while the community's feed version is
 * `version`, which the caller read (page-cache.ts feedVersion) BEFORE this call.
 */
export async function viewsUnderVersion(
	communityId: number,
	version: string,
	postIds: string[],
	userIds: number[],
): Promise<{ posts: Map<string, PostView>; users: Map<number, Buffer> }> {
	const kept = viewsOf(communityId, version)
	const [posts, users] = await Promise.all([
		throughKept(kept.posts, postIds, (missing) => getPostViews(communityId, missing)),
		throughKept(kept.users, userIds, (missing) => getUserViews(communityId, missing)),
	])
	return { posts, users }
}
