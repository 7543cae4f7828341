// Reading a page of the universal feed (optionally by topics and/or widgets) from
// the community's sorted sets. Several sets are merged here in the application
// (never ZUNION across keys): the top N of each set, merged, is the top N of the
// union. Topic AND widget filters: candidates from the topic sets, kept when a widget
// set holds them (ZMSCORE). Per-viewer blocks are applied on the candidates; when
// they thin a page out, N doubles and the sets are read again.
import { badRequest } from '../lib/errors'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { resolveFilters } from './catalog'
import { sharedPageComputed, sharedPageJoined } from './metrics'
import { feedVersion, SHARED_RENDERINGS, type SharedPage, sharedPages } from './page-cache'
import { readPlainPage } from './page-read'
import { getPosts } from './post-cache'
import type { Viewer } from './present'
import { ensureBuilt } from './rebuild'
import {
	authorsFrom,
	keptPageBytes,
	loadAuthors,
	renderToKeep,
	type Selection,
	selectFrom,
	selectVisible,
} from './render'
import {
	type Exclusions,
	excludesNothing,
	type ViewerFlags,
	viewerBlocks,
	viewerFlags,
	viewerState,
} from './viewer-state'

export interface FeedQuery {
	topicIds: string[]
	widgetIds: string[]
	page: number
	pageSize: number
	cursor?: string
}

interface Entry {
	id: string
	score: number
}

export function encodeCursor(entry: Entry): string {
	return Buffer.from(`${entry.score}:${entry.id}`).toString('base64url')
}

export function decodeCursor(cursor: string): Entry {
	const [score, id] = Buffer.from(cursor, 'base64url').toString().split(':')
	if (!id || !/^-?\d+(\.\d+)?$/.test(score ?? '')) throw badRequest('Invalid cursor')
	return { score: Number(score), id }
}

/** Feed order: newest first; equal times by id, descending (as ZREVRANGE orders ties). */
const before = (a: Entry, b: Entry) => a.score > b.score || (a.score === b.score && a.id > b.id)

async function readTop(key: string, bound: Entry | null, n: number, skip = 0): Promise<Entry[]> {
	const raw = await redis.zrevrangebyscore(
		key,
		bound ? bound.score : '+inf',
		'-inf',
		'WITHSCORES',
		'LIMIT',
		skip,
		n,
	)
	const entries: Entry[] = []
	for (let i = 0; i < raw.length; i += 2)
		entries.push({ id: raw[i] as string, score: Number(raw[i + 1]) })
	return entries
}

function mergeAfter(lists: Entry[][], bound: Entry | null): Entry[] {
	const seen = new Set<string>()
	const merged: Entry[] = []
	for (const entry of lists.flat()) {
		if (seen.has(entry.id) || (bound && !before(bound, entry))) continue
		seen.add(entry.id)
		merged.push(entry)
	}
	return merged.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
}

async function inAnyOf(checkKeys: string[], entries: Entry[]): Promise<Entry[]> {
	if (checkKeys.length === 0 || entries.length === 0) return entries
	const ids = entries.map((e) => e.id)
	const answers = await Promise.all(checkKeys.map((key) => redis.zmscore(key, ...ids)))
	return entries.filter((_, i) => answers.some((scores) => scores[i] !== null))
}

/** The ids of the requested page (in feed order), the viewer's blocks and the cursor of the next page. */
export interface PagePlan {
	ids: string[]
	blocked: Exclusions
	nextCursor: string | null
	/** The page's entries, for a cursor after a page cut short by its weight. */
	entries: Entry[]
}

export async function planUniversal(
	viewer: Viewer,
	query: FeedQuery,
	knownBlocks?: Exclusions,
): Promise<PagePlan> {
	const c = viewer.communityId
	const bound = query.cursor ? decodeCursor(query.cursor) : null
	const offset = bound ? 0 : (query.page - 1) * query.pageSize
	const want = offset + query.pageSize + 1
	const requestedTopicKeys = query.topicIds.map((id) => keys.topicFeed(c, id))
	const requestedWidgetKeys = query.widgetIds.map((id) => keys.widgetFeed(c, id))
	const firstSources =
		requestedTopicKeys.length > 0
			? requestedTopicKeys
			: requestedWidgetKeys.length > 0
				? requestedWidgetKeys
				: [keys.universalFeed(c)]
	// One set, no cursor: the page is a plain range of it, unless blocks thin it out.
	const direct =
		firstSources.length === 1 &&
		!bound &&
		requestedTopicKeys.length + requestedWidgetKeys.length <= 1
	// The filters, blocks and the first read of the sets go out together (one round trip).
	const [filters, blocked, firstLists] = await Promise.all([
		resolveFilters(c, query.topicIds, query.widgetIds),
		knownBlocks ?? viewerBlocks(viewer),
		Promise.all(
			firstSources.map((key) =>
				direct ? readTop(key, null, query.pageSize + 1, offset) : readTop(key, bound, want),
			),
		),
	])
	// An empty read may mean Redis lost this community's sets (no build marker):
	// rebuild them from Postgres, then read again.
	if (firstLists.every((list) => list.length === 0) && !(await redis.exists(keys.feedBuilt(c)))) {
		await ensureBuilt(c)
		if (await redis.exists(keys.feedBuilt(c))) return planUniversal(viewer, query, blocked)
	}
	if (query.topicIds.length > 0 && filters.enabledTopicIds.length === 0)
		return { ids: [], blocked, nextCursor: null, entries: [] }
	if (direct && excludesNothing(blocked))
		return planOf(firstLists[0] ?? [], 0, query.pageSize, blocked)
	const enabled = new Set(filters.enabledTopicIds.map((id) => keys.topicFeed(c, id)))
	const sources =
		requestedTopicKeys.length > 0 ? firstSources.filter((key) => enabled.has(key)) : firstSources
	const checks = requestedTopicKeys.length > 0 ? requestedWidgetKeys : []

	let n = want
	let lists = direct
		? await Promise.all(sources.map((key) => readTop(key, bound, n)))
		: firstLists.filter((_, i) => sources.includes(firstSources[i] as string))
	let visible: Entry[] = []
	for (;;) {
		const merged = await inAnyOf(checks, mergeAfter(lists, bound))
		visible = excludesNothing(blocked) ? merged : await withoutBlocked(c, merged, blocked)
		const exhausted = lists.every((list) => list.length < n)
		if (visible.length >= want || exhausted) break
		n *= 2
		lists = await Promise.all(sources.map((key) => readTop(key, bound, n)))
	}
	return planOf(visible, offset, query.pageSize, blocked)
}

function planOf(visible: Entry[], offset: number, pageSize: number, blocked: Exclusions): PagePlan {
	const page = visible.slice(offset, offset + pageSize)
	const last = page.at(-1)
	const nextCursor = visible.length > offset + pageSize && last ? encodeCursor(last) : null
	return { ids: page.map((e) => e.id), blocked, nextCursor, entries: page }
}

/** A page cut by its weight goes on right after its last post. */
function cursorAfterCut(plan: PagePlan, selection: Selection): string | null {
	if (!selection.cut) return plan.nextCursor
	const lastId = selection.page.at(-1)?.id
	const last = plan.entries.find((entry) => entry.id === lastId)
	return last ? encodeCursor(last) : plan.nextCursor
}

/** What the first round trip of a universal page reads, before the page is planned. */
export interface FirstRead {
	key: string
	kept: SharedPage | undefined
	version: string
	blocked: Exclusions
	/** The viewer's flags of the kept page's posts. */
	keptFlags: ViewerFlags | null
	/** keptFlags are the viewer's whole flags (viewer-state.ts): they answer for any page. */
	wholeFlags: boolean
}

/**
 * Sends the first round trip of a page: the community's feed version, the viewer's
 * blocks and the flags of the kept page's posts (page-cache.ts), together. Started as
 * soon as the caller's token is verified, it shares a round trip with the token's checks.
 */
export async function startUniversalRead(
	viewer: Pick<Viewer, 'userId' | 'communityId'>,
	query: FeedQuery,
): Promise<FirstRead> {
	const key = pageKey(viewer.communityId, query)
	const kept = sharedPages.get(key)
	const [version, { blocked, flags, whole }] = await Promise.all([
		feedVersion(viewer.communityId),
		viewerState(viewer, kept),
	])
	return { key, kept, version, blocked, keptFlags: flags, wholeFlags: whole }
}

/**
 * The same page serialized as the `data` JSON (UTF-8): the fast path of GET /feed/universal.
 * A viewer without blocks gets the page every such viewer shares (page-cache.ts) when it
 * is current, from the first round trip alone (`started`, when the route began it early
 * for this query). Otherwise the page is planned and selected, and kept.
 */
export async function readUniversalJson(
	viewer: Viewer,
	query: FeedQuery,
	started?: Promise<FirstRead>,
): Promise<Buffer> {
	const key = pageKey(viewer.communityId, query)
	let first = started && (await started)
	if (first?.key !== key) first = await startUniversalRead(viewer, query)
	const { kept, version, blocked, keptFlags, wholeFlags } = first
	if (!excludesNothing(blocked)) return (await renderPage(viewer, query, blocked)).bytes
	if (kept && keptFlags && kept.version === version)
		return keptPageBytes(viewer, kept, keptFlags, { tail: tailOf(kept.nextCursor) })
	// Readers that find the page changed while another reader of this process is already
	// computing it under the same version wait for that one: after a write, every reader
	// in flight would otherwise compute the same page (100 posts a second made a third
	// of the reads compute it). So do readers whose round trip began before that one
	// kept it and ended after: they took the page kept before. They then need only their
	// own flags of its posts (none to ask for when their whole flags are known).
	// (Found in this turn of the event loop: an await between finding nothing and
	// registering the computation below let every reader of a batch compute.)
	const joined = sharedUnder(key, version)
	if (joined) {
		sharedPageJoined.inc()
		const page = await joined
		const flags =
			wholeFlags && keptFlags
				? keptFlags
				: await viewerFlags(
						viewer,
						page.page.map((p) => p.id),
					)
		return keptPageBytes(viewer, page, flags, { tail: tailOf(page.nextCursor) })
	}
	sharedPageComputed.inc()
	const done = renderShared(viewer, query, key, version, wholeFlags ? keptFlags : null)
	const entry = { version, done }
	computingShared.set(key, entry)
	try {
		return (await done).bytes
	} finally {
		if (computingShared.get(key) === entry) computingShared.delete(key)
	}
}

/** Shared pages being computed in this process, by page key, with the version they were read under. */
const computingShared = new Map<
	string,
	{ version: string; done: Promise<{ page: SharedPage; bytes: Buffer }> }
>()

/** The shared page kept, or being computed, under `version` in this process; found now, awaited by the caller. */
function sharedUnder(key: string, version: string): Promise<SharedPage> | undefined {
	const kept = sharedPages.get(key)
	if (kept?.version === version) return Promise.resolve(kept)
	const computing = computingShared.get(key)
	return computing?.version === version ? computing.done.then((done) => done.page) : undefined
}

/**
 * Plans, selects and renders a page for `viewer`. A plain page for a viewer without
 * blocks is read in one script call (readPlain); `flags`, the viewer's whole flags when
 * known, spare it the flags command.
 */
async function renderPage(
	viewer: Viewer,
	query: FeedQuery,
	blocked: Exclusions,
	flags: ViewerFlags | null = null,
) {
	const plain =
		excludesNothing(blocked) && isPlain(query) ? await readPlain(viewer, query, flags) : null
	const plan = plain?.plan ?? (await planUniversal(viewer, query, blocked))
	const selection = plain?.selection ?? (await selectVisible(viewer, plan.ids, plan.blocked))
	const authors = plain?.authors ?? (await loadAuthors(viewer, selection.page))
	const nextCursor = cursorAfterCut(plan, selection)
	const { bytes, rendered } = renderToKeep(
		viewer,
		selection,
		authors,
		{ tail: tailOf(nextCursor) },
		SHARED_RENDERINGS,
	)
	return { bytes, selection, authors, nextCursor, rendered }
}

const isPlain = (query: FeedQuery) =>
	query.topicIds.length === 0 && query.widgetIds.length === 0 && !query.cursor

/**
 * A plain page of the whole feed: the plan, the posts and their authors from one script
 * call (page-read.ts), where they were three round trips; null when the set reads empty
 * (planUniversal sees to a rebuild).
 */
async function readPlain(viewer: Viewer, query: FeedQuery, flags: ViewerFlags | null) {
	const offset = (query.page - 1) * query.pageSize
	const read = await readPlainPage(viewer.communityId, offset, query.pageSize + 1)
	if (read.entries.length === 0) return null
	const plan = planOf(read.entries, 0, query.pageSize, new Set())
	const known = flags ?? (await viewerFlags(viewer, plan.ids))
	const selection = selectFrom(viewer, plan.ids, read.views, known, plan.blocked)
	return { plan, selection, authors: authorsFrom(selection.page, read.users) }
}

/** A page every viewer without blocks shares, computed under `version` (read before) and kept. */
async function renderShared(
	viewer: Viewer,
	query: FeedQuery,
	key: string,
	version: string,
	flags: ViewerFlags | null,
) {
	const { bytes, selection, authors, nextCursor, rendered } = await renderPage(
		viewer,
		query,
		new Set(),
		flags,
	)
	const page: SharedPage = {
		version,
		keptAt: Date.now(),
		page: selection.page,
		...authors,
		nextCursor,
		rendered,
	}
	sharedPages.keep(key, page)
	return { page, bytes }
}

const tailOf = (nextCursor: string | null) => `,"next_cursor":${JSON.stringify(nextCursor)}}`

/** What identifies a page of a community's universal feed (the viewer is not part of it). */
function pageKey(communityId: number, query: FeedQuery): string {
	const topics = [...query.topicIds].sort().join(',')
	const widgets = [...query.widgetIds].sort().join(',')
	return `${communityId}|${topics}|${widgets}|${query.page}|${query.pageSize}|${query.cursor ?? ''}`
}

async function withoutBlocked(
	communityId: number,
	entries: Entry[],
	blocked: Exclusions,
): Promise<Entry[]> {
	const posts = await getPosts(
		communityId,
		entries.map((e) => e.id),
	)
	return entries.filter((e) => {
		const post = posts.get(e.id)
		return post !== undefined && !blocked.has(post.user_id) && !blocked.posts?.has(e.id)
	})
}
