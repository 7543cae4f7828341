// Serializing a feed page without parsing the cached posts and users: their
// viewer-independent JSON is stored ready (post-cache.ts) and copied as bytes; only
// the viewer's fields are written here. Produces the JSON of hydrate.ts present()
// (same fields, same order) for the same posts.
import { mayShow, type VisibilityRules } from './hydrate'
import { getPostViews, getUserViews, viewerFlags } from './post-cache'
import { postMenu, type Viewer } from './present'

const bytes = (text: string) => Buffer.from(text)
const OPEN = bytes('{')
const COMMA = bytes(',')
const CLOSE_LIST = bytes(']')
const CLOSE = bytes('}')

/** `{"posts":[...],"users":{...}` — the caller appends its own fields and the closing brace. */
export async function renderPostsJson(
	viewer: Viewer,
	ids: string[],
	blocked: Set<number>,
	rules: VisibilityRules = {},
): Promise<Buffer[]> {
	const [views, flags] = await Promise.all([
		getPostViews(viewer.communityId, ids),
		viewerFlags(viewer.userId, ids),
	])
	const parts: Buffer[] = [bytes('{"posts":[')]
	const authors = new Map<number, string>()
	for (const id of ids) {
		const view = views.get(id)
		if (!view || !mayShow(view.header, viewer, rules) || blocked.has(view.header.user_id)) continue
		authors.set(view.header.user_id, view.header.author_uuid)
		const own = `,"is_liked":${flags.liked.has(id)},"is_saved":${flags.saved.has(id)},"menu_items":${JSON.stringify(postMenu(view.header, viewer))}}`
		if (parts.length > 1) parts.push(COMMA)
		parts.push(OPEN, view.fragment, bytes(own))
	}
	parts.push(CLOSE_LIST, bytes(',"users":{'))
	const users = await getUserViews(viewer.communityId, [...authors.keys()])
	let first = true
	for (const [userId, json] of users) {
		parts.push(bytes(`${first ? '' : ','}${JSON.stringify(authors.get(userId))}:`), json)
		first = false
	}
	parts.push(CLOSE)
	return parts
}
