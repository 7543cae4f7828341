// Serializing a feed page without parsing the cached posts: each post's shared part
// is stored pre-serialized (post-cache.ts) and only the viewer's fields are added.
// Produces exactly the JSON of hydrate.ts present() for the same posts.
import { type VisibilityRules, mayShow } from './hydrate'
import { getPostViews, getUsers, viewerFlags } from './post-cache'
import { type FeedUser, postMenu, presentFeedUser, type Viewer } from './present'

export async function renderPostsJson(
	viewer: Viewer,
	ids: string[],
	blocked: Set<number>,
	rules: VisibilityRules = {},
): Promise<{ postsJson: string; usersJson: string }> {
	const [views, flags] = await Promise.all([
		getPostViews(viewer.communityId, ids),
		viewerFlags(viewer.userId, ids),
	])
	const parts: string[] = []
	const authorIds = new Set<number>()
	for (const id of ids) {
		const view = views.get(id)
		if (!view || !mayShow(view.header, viewer, rules) || blocked.has(view.header.user_id)) continue
		authorIds.add(view.header.user_id)
		const own = `"is_liked":${flags.liked.has(id)},"is_saved":${flags.saved.has(id)},"menu_items":${JSON.stringify(postMenu(view.header, viewer))}`
		parts.push(`{${view.fragment},${own}}`)
	}
	const authors = await getUsers(viewer.communityId, [...authorIds])
	const users: Record<string, FeedUser> = {}
	for (const author of authors.values()) users[author.uuid] = presentFeedUser(author)
	return { postsJson: `[${parts.join(',')}]`, usersJson: JSON.stringify(users) }
}
