// Turning post ids into the feed response for one viewer in a constant number of
// Redis round trips: posts, viewer flags and blocks together, then the authors.
// Reusable by every feed (universal, connection, personalised, user lists).
import { mayView } from '../lib/visibility'
import { getPosts } from './post-cache'
import {
	type FeedPost,
	type FeedUser,
	presentFeedPost,
	presentFeedUser,
	type Viewer,
} from './present'
import type { CachedPost, Visibility } from './repo'
import { getUsers } from './user-cache'
import { type Exclusions, viewerBlocks, viewerFlags } from './viewer-state'

/**
 * How a feed narrows the visibility rule (lib/visibility.ts): the visibilities it shows
 * of others' posts. A feed that lists `connections` vouches that the viewer follows the
 * author of each such post (its source holds only those, or the caller checked).
 */
export interface VisibilityRules {
	/** Visibilities shown to viewers other than the author. Default: public only. */
	visibilities?: Visibility[]
	/** Keep posts whose topics are all disabled (a user's own post list does). */
	keepHidden?: boolean
}

/** Whether the viewer may see the post in a feed built with these rules. */
export function mayShow(
	post: Pick<
		CachedPost,
		'is_deleted' | 'community_id' | 'hidden' | 'held' | 'user_id' | 'visibility'
	>,
	postId: string,
	viewer: Viewer,
	blocked: Exclusions,
	rules: VisibilityRules = {},
): boolean {
	const shown = rules.visibilities ?? ['public']
	const standing = {
		connected: shown.includes('connections'),
		blocked: blocked.has(post.user_id),
		hiddenByViewer: blocked.posts?.has(postId) ?? false,
	}
	return (
		mayView(post, viewer, standing, { keepHidden: rules.keepHidden }) &&
		(post.user_id === viewer.userId || shown.includes(post.visibility))
	)
}

export interface Candidates {
	posts: CachedPost[]
	liked: Set<string>
	saved: Set<string>
}

/** The posts of `ids` the viewer may see, in the order given (one round trip). */
export async function loadCandidates(
	viewer: Viewer,
	ids: string[],
	rules: VisibilityRules = {},
	knownBlocks?: Exclusions,
): Promise<Candidates> {
	const [found, flags, blocked] = await Promise.all([
		getPosts(viewer.communityId, ids),
		viewerFlags(viewer, ids),
		knownBlocks ?? viewerBlocks(viewer),
	])
	const posts: CachedPost[] = []
	for (const id of ids) {
		const post = found.get(id)
		if (post && mayShow(post, id, viewer, blocked, rules)) posts.push(post)
	}
	return { posts, liked: flags.liked, saved: flags.saved }
}

export interface Hydrated {
	posts: FeedPost[]
	users: Record<string, FeedUser>
}

/** Presents candidates: fetches their authors (one round trip) and builds the users map keyed by uuid. */
export async function present(viewer: Viewer, candidates: Candidates): Promise<Hydrated> {
	const authorIds = [...new Set(candidates.posts.map((p) => p.user_id))]
	const authors = await getUsers(viewer.communityId, authorIds)
	const users: Record<string, FeedUser> = {}
	for (const author of authors.values()) users[author.uuid] = presentFeedUser(author)
	const posts = candidates.posts.map((post) =>
		presentFeedPost(post, viewer, {
			isLiked: candidates.liked.has(post.id),
			isSaved: candidates.saved.has(post.id),
		}),
	)
	return { posts, users }
}

/** Post ids → `{ posts, users }` for the viewer, leaving out what it may not see. */
export async function hydratePosts(
	viewer: Viewer,
	ids: string[],
	rules: VisibilityRules = {},
): Promise<Hydrated> {
	return present(viewer, await loadCandidates(viewer, ids, rules))
}
