// Serializing a feed page without parsing the cached posts and users: their
// viewer-independent JSON is stored ready (post-encoding.ts) and copied as bytes; only
// the viewer's fields are written here. Produces the JSON of hydrate.ts present()
// (same fields, same order) for the same posts. Used by every feed page (universal,
// connection, personalised).
import { config } from '../config'
import { mayShow, type VisibilityRules } from './hydrate'
import { Renderings, type SharedPage } from './page-cache'
import { getPostViews } from './post-cache'
import type { PostView } from './post-encoding'
import { postMenuJson, type Viewer } from './present'
import { getUserViews } from './user-cache'
import type { Exclusions } from './viewer-state'
import { type ViewerFlags, viewerFlags } from './viewer-state'

/**
 * Pieces of a page written into ONE buffer: cached fragments are copied, the small
 * strings between them are encoded in place. Allocating a Buffer per piece (~60 per
 * page) cost more than the copying itself.
 */
export class PageWriter {
	private pieces: (Buffer | string)[] = []
	private text = ''
	private bound = 0

	str(text: string) {
		this.text += text
	}

	buf(bytes: Buffer) {
		this.flush()
		this.pieces.push(bytes)
		this.bound += bytes.length
	}

	private flush() {
		if (this.text === '') return
		this.pieces.push(this.text)
		// UTF-8 takes at most 3 bytes per UTF-16 unit.
		this.bound += this.text.length * 3
		this.text = ''
	}

	done(): Buffer {
		this.flush()
		const out = Buffer.allocUnsafe(this.bound)
		let at = 0
		for (const piece of this.pieces) {
			if (typeof piece === 'string') at += out.write(piece, at)
			else {
				out.set(piece, at)
				at += piece.length
			}
		}
		return out.subarray(0, at)
	}
}

const flagsJson = (flags: ViewerFlags, postId: string) =>
	`,"is_liked":${flags.liked.has(postId)},"is_saved":${flags.saved.has(postId)}`

/** The viewer's flags of `postIds` as one character each: two pages filled with equal bits are equal. */
export function flagBits(postIds: string[], flags: ViewerFlags): string {
	let bits = ''
	for (const id of postIds)
		bits += String.fromCharCode(48 + (flags.liked.has(id) ? 2 : 0) + (flags.saved.has(id) ? 1 : 0))
	return bits
}

/** A page rendered with its posts' flags left open: `parts` around `holes` (post ids). */
export interface FlagTemplate {
	parts: Buffer[]
	holes: string[]
}

/** Writes a page as a FlagTemplate: a PageWriter whose `flags` leaves a hole. */
export class FlagPageWriter {
	private current = new PageWriter()
	private parts: Buffer[] = []
	private holes: string[] = []

	str(text: string) {
		this.current.str(text)
	}

	buf(bytes: Buffer) {
		this.current.buf(bytes)
	}

	flags(postId: string) {
		this.parts.push(this.current.done())
		this.current = new PageWriter()
		this.holes.push(postId)
	}

	done(): FlagTemplate {
		this.parts.push(this.current.done())
		return { parts: this.parts, holes: this.holes }
	}
}

/** The page's bytes with the viewer's flags written into its holes, then `tail`. */
export function fillFlags({ parts, holes }: FlagTemplate, flags: ViewerFlags, tail = ''): Buffer {
	const out = new PageWriter()
	holes.forEach((postId, i) => {
		out.buf(parts[i] as Buffer)
		out.str(flagsJson(flags, postId))
	})
	out.buf(parts[holes.length] as Buffer)
	out.str(tail)
	return out.done()
}

/** The visible posts of a window of candidates, with what rendering them needs. */
export interface Selection {
	page: { id: string; view: PostView }[]
	liked: Set<string>
	saved: Set<string>
	/** Visible candidates seen in the window (skipped + page): fewer than offset + limit means the window ran short. */
	visible: number
	/** The page stopped early: the next post would have passed FEED_PAGE_MAX_BYTES. */
	cut: boolean
}

/**
 * One round trip: the views and the viewer's flags of `ids` (feed order); drops what
 * the viewer may not see (deleted, hidden, visibility, blocked authors), skips the
 * first `offset` visible posts and keeps up to `limit`, and no more than
 * FEED_PAGE_MAX_BYTES of posts (a page of heavy posts is cut; at least one post).
 */
export async function selectVisible(
	viewer: Viewer,
	ids: string[],
	blocked: Exclusions,
	rules: VisibilityRules = {},
	offset = 0,
	limit = ids.length,
): Promise<Selection> {
	// A visible post's index never exceeds its index in `ids`: the page lies in ids[offset..],
	// so only those need the viewer's flags.
	const [views, flags] = await Promise.all([
		getPostViews(viewer.communityId, ids),
		viewerFlags(viewer, ids.slice(offset)),
	])
	const page = { offset, limit, maxBytes: config.FEED_PAGE_MAX_BYTES }
	return { ...pickVisible(viewer, ids, views, blocked, rules, page), ...flags }
}

/** selectVisible's selection of a whole window (no offset) from views and flags already read. */
export function selectFrom(
	viewer: Viewer,
	ids: string[],
	views: Map<string, PostView>,
	flags: ViewerFlags,
	blocked: Exclusions,
): Selection {
	const page = { offset: 0, limit: ids.length, maxBytes: config.FEED_PAGE_MAX_BYTES }
	return { ...pickVisible(viewer, ids, views, blocked, {}, page), ...flags }
}

interface PageBounds {
	offset: number
	limit: number
	/** what the page's posts may weigh together (at least one post is kept) */
	maxBytes: number
}

/**
 * The posts of `ids` the viewer may see, in order, after skipping `offset` visible ones,
 * up to `limit` of them and `maxBytes` of their cached bytes.
 */
function pickVisible(
	viewer: Viewer,
	ids: string[],
	views: Map<string, PostView>,
	blocked: Exclusions,
	rules: VisibilityRules = {},
	{ offset, limit, maxBytes }: PageBounds = { offset: 0, limit: ids.length, maxBytes: Infinity },
): Pick<Selection, 'page' | 'visible' | 'cut'> {
	const page: Selection['page'] = []
	let visible = 0
	let bytes = 0
	for (const id of ids) {
		if (page.length >= limit) break
		const view = views.get(id)
		if (!view || !mayShow(view.header, id, viewer, blocked, rules)) continue
		if (visible++ < offset) continue
		bytes += view.fragment.length
		if (bytes > maxBytes && page.length > 0) return { page, visible: visible - 1, cut: true }
		page.push({ id, view })
	}
	return { page, visible, cut: false }
}

export interface RenderOptions {
	/** Name of the posts list (`posts`, or `feed` for the connection feed). */
	listKey?: string
	/** Each post also carries its author as `user` (the personalised feed). */
	embedUser?: boolean
	/** Written after the page's lists (the caller's fields and closing brace), in the same buffer. */
	tail?: string
}

/** The authors of a selection's posts: id → uuid, and their cached feed forms. */
export interface PageAuthors {
	authors: Map<number, string>
	users: Map<number, Buffer>
}

export async function loadAuthors(viewer: Viewer, page: Selection['page']): Promise<PageAuthors> {
	const authors = authorsOf(page)
	return { authors, users: await getUserViews(viewer.communityId, [...authors.keys()]) }
}

/** The authors of a selection's posts, from their cached forms already read. */
export function authorsFrom(page: Selection['page'], forms: Map<number, Buffer>): PageAuthors {
	const authors = authorsOf(page)
	const users = new Map<number, Buffer>()
	for (const id of authors.keys()) {
		const form = forms.get(id)
		if (form) users.set(id, form)
	}
	return { authors, users }
}

function authorsOf(page: Selection['page']): Map<number, string> {
	const authors = new Map<number, string>()
	for (const { view } of page) authors.set(view.header.user_id, view.header.author_uuid)
	return authors
}

/** Where a post's `is_liked` and `is_saved` go: filled per read (fillFlags). */
export interface FlagsHole {
	flagsOf: string
}

export interface EmbeddedPost {
	/**
	 * the post as a feed shows it to the viewer (same bytes as in a feed page), in pieces
	 * to write in order, its flags left open (they change without any version bump)
	 */
	json: (Buffer | string | FlagsHole)[]
	authorId: number
	authorUuid: string
	topicIds: string[]
	widgetIds: string[]
}

// The stable fragment holds `"topics":[...],"widget_ids":[...]` (present.ts
// presentStablePost); a quote inside a text value is escaped, so these keys, preceded
// by a comma, are only ever the post's own. Found in the bytes, only the list parsed.
const TOPICS = Buffer.from(',"topics":[')
const WIDGETS = Buffer.from(',"widget_ids":[')
const CLOSE = 93 // ]
function idsIn(fragment: Buffer, key: Buffer): string[] {
	const at = fragment.indexOf(key)
	if (at < 0) return []
	const start = at + key.length - 1
	const end = fragment.indexOf(CLOSE, start)
	return end < 0 ? [] : (JSON.parse(fragment.toString('utf8', start, end + 1)) as string[])
}

// A post's topic and widget ids, found once per cached fragment (kept views serve the
// same fragment to many pages).
const lists = new WeakMap<Buffer, { topicIds: string[]; widgetIds: string[] }>()
function listsOf(fragment: Buffer) {
	let found = lists.get(fragment)
	if (!found) {
		found = { topicIds: idsIn(fragment, TOPICS), widgetIds: idsIn(fragment, WIDGETS) }
		lists.set(fragment, found)
	}
	return found
}

/**
 * The visible posts of `ids` one by one (for a page that embeds posts among other
 * things: the notification feed), each as the pieces of the bytes a feed page holds
 * (the caller writes them into its page), from views the caller read:
 * nothing parsed but the topic ids. The caller supplies the authors (`authorId`) and
 * writes the flags into the hole (FlagPageWriter).
 */
export function embedPosts(
	viewer: Viewer,
	ids: string[],
	views: Map<string, PostView>,
	blocked: Exclusions,
	rules: VisibilityRules = {},
): Map<string, EmbeddedPost> {
	const posts = new Map<string, EmbeddedPost>()
	for (const { id, view } of pickVisible(viewer, ids, views, blocked, rules).page) {
		const menu = `,"menu_items":${postMenuJson(view.header, viewer)}}`
		posts.set(id, {
			json: ['{', view.fragment, { flagsOf: id }, menu],
			authorId: view.header.user_id,
			authorUuid: view.header.author_uuid,
			...listsOf(view.fragment),
		})
	}
	return posts
}

/** `{"<listKey>":[...],"users":{...}` of a selection — the caller appends its fields and the closing brace. */
export async function renderSelection(
	viewer: Viewer,
	selection: Selection,
	options: RenderOptions = {},
): Promise<Buffer[]> {
	return [writeSelection(viewer, selection, await loadAuthors(viewer, selection.page), options)]
}

/** The bytes of a selection whose authors are known (a kept page has them). */
export function writeSelection(
	viewer: Viewer,
	selection: Pick<Selection, 'page' | 'liked' | 'saved'>,
	{ authors, users }: PageAuthors,
	options: RenderOptions = {},
): Buffer {
	const out = new PageWriter()
	out.str(`{${JSON.stringify(options.listKey ?? 'posts')}:[`)
	let first = true
	for (const { id, view } of selection.page) {
		const author = options.embedUser ? users.get(view.header.user_id) : undefined
		out.str(first ? '{' : ',{')
		first = false
		out.buf(view.fragment)
		out.str(`${flagsJson(selection, id)},"menu_items":${postMenuJson(view.header, viewer)}`)
		if (author) {
			out.str(',"user":')
			out.buf(author)
		}
		out.str('}')
	}
	out.str('],"users":{')
	first = true
	for (const [userId, json] of users) {
		out.str(`${first ? '' : ','}${JSON.stringify(authors.get(userId))}:`)
		out.buf(json)
		first = false
	}
	out.str('}')
	if (options.tail) out.str(options.tail)
	return out.done()
}

/**
 * What a page's bytes depend on besides its posts and authors: the viewer's role,
 * which posts are the viewer's own (both give the menus) and the viewer's flags, then
 * the tail — a character or two per post.
 */
export function renderKey(
	viewer: Viewer,
	page: Selection['page'],
	flags: ViewerFlags,
	tail: string,
): string {
	let own = ''
	for (const { view } of page) own += view.header.user_id === viewer.userId ? 'o' : '-'
	const postIds = page.map((p) => p.id)
	return `${viewer.isCm ? 'c' : 'm'}${own}${flagBits(postIds, flags)}${tail}`
}

/**
 * The bytes of a kept page (page-cache.ts: its posts and authors are fixed) for this
 * viewer, flags and `tail`: as served before under the same render key, else rendered
 * again and kept for the next read. A warm page then costs no rendering.
 */
export function keptPageBytes(
	viewer: Viewer,
	kept: SharedPage,
	flags: ViewerFlags,
	options: RenderOptions & { tail: string },
): Buffer {
	return kept.rendered.of(renderKey(viewer, kept.page, flags, options.tail), () =>
		writeSelection(viewer, { page: kept.page, ...flags }, kept, options),
	)
}

/**
 * Renders a selection and, for a page about to be kept, its renderings (keptPageBytes),
 * this first one among them: at most `renderings`.
 */
export function renderToKeep(
	viewer: Viewer,
	selection: Pick<Selection, 'page' | 'liked' | 'saved'>,
	authors: PageAuthors,
	options: RenderOptions & { tail: string },
	renderings = 1,
): { bytes: Buffer; rendered: Renderings } {
	const rendered = new Renderings(renderings)
	const bytes = rendered.of(renderKey(viewer, selection.page, selection, options.tail), () =>
		writeSelection(viewer, selection, authors, options),
	)
	return { bytes, rendered }
}

/** `{"posts":[...],"users":{...}` — the caller appends its own fields and the closing brace. */
export async function renderPostsJson(
	viewer: Viewer,
	ids: string[],
	blocked: Exclusions,
	rules: VisibilityRules = {},
): Promise<Buffer[]> {
	return renderSelection(viewer, await selectVisible(viewer, ids, blocked, rules))
}

/**
 * A page of `limit` visible posts after `offset` visible ones, from a source read as
 * its first n candidates: `first` holds the first offset + limit; when hidden posts
 * thin the page out, n doubles and the source is read again (until it runs dry), so a
 * page is short only at the end of the feed.
 */
export async function selectPage(
	viewer: Viewer,
	first: string[],
	more: (n: number) => Promise<string[]>,
	blocked: Exclusions,
	rules: VisibilityRules,
	offset: number,
	limit: number,
): Promise<Selection> {
	let n = offset + limit
	let ids = first
	for (;;) {
		const selection = await selectVisible(viewer, ids, blocked, rules, offset, limit)
		if (selection.page.length >= limit || selection.cut || ids.length < n) return selection
		n *= 2
		ids = await more(n)
	}
}
