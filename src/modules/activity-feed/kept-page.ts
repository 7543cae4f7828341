// Page 1 of a user's notification feed kept in this process, rendered (the universal
// feed's shared pages' rule, timelines page-cache.ts): what it shows depends on the
// user's copy (its `page` version, bumped by every change, store.ts), on posts and users
// (the community's feed version, bumped by every writer of either), on the viewer's
// blocks (compared as a set) and on their liked/saved flags (left open in the bytes and
// filled per read). A warm page is one round trip of plain commands — the copy's
// version, the feed version, the blocks and the viewer's flags version (timelines
// viewerState: whole flags or the page's memory of them; else the flags of its
// posts) — and a splice. Pages embedding comments are not kept: an edited comment
// bumps no version.

import type { Role } from '../../lib/tokens'
import {
	type Exclusions,
	type FlagsHolder,
	type FlagTemplate,
	feedVersion,
	type Kept,
	KeptPages,
	type Renderings,
	type ViewerFlags,
	viewerState,
} from '../../timelines'
import type { Caller } from '../auth/session'
import { readPageVersion } from '../notifications/store'

export interface KeptActivityPage extends Kept, FlagsHolder {
	/** the role it was rendered for (menus): served only to the same role */
	role: Role
	copyVersion: string
	feedVersion: string
	blocked: Exclusions
	/** `{"activities":[…],"users":{…}`, the posts' flags open */
	body: FlagTemplate
	/** what comes after the body: read again per use (topics and widgets are Postgres rows) */
	topicIds: string[]
	widgetIds: string[]
	total: number
	/** The bytes last served from it, by the flags and tail they were filled with. */
	served: Renderings
}

const pages = new KeptPages<KeptActivityPage>(
	(page) => page.body.parts.reduce((bytes, part) => bytes + part.length, 0) * (1 + page.served.max),
	5000,
)

/**
 * One user's page 1 as they asked for it (size, names or codes). Not the role (it decides
 * menus): that is known only once the token's checks are back, and the page's first read
 * starts before (service.ts startActivityEarly); the kept page names its role instead.
 */
export const keptPageKey = (userId: number, pageSize: number, v1: boolean) =>
	`${userId}|${pageSize}|${v1 ? 1 : 0}`

export interface WarmPage {
	kept: KeptActivityPage
	flags: ViewerFlags
}

const sameMembers = <T>(a: ReadonlySet<T>, b: ReadonlySet<T>) =>
	a.size === b.size && [...a].every((id) => b.has(id))

/** The same blocks and the same hidden posts (a hide or report since drops the kept page). */
const sameSet = (a: Exclusions, b: Exclusions) =>
	sameMembers(a, b) && sameMembers(a.posts ?? new Set(), b.posts ?? new Set())

/**
 * The kept page under `key` and the viewer's current flags of its posts, when every
 * version it was rendered under still stands; else undefined (the caller renders it).
 */
export async function currentKeptPage(caller: Caller, key: string): Promise<WarmPage | undefined> {
	const kept = pages.get(key)
	if (!kept) return undefined
	const [copyVersion, version, { blocked, flags }] = await Promise.all([
		readPageVersion(caller.userId),
		feedVersion(caller.communityId),
		viewerState(caller, kept),
	])
	const current =
		copyVersion === kept.copyVersion &&
		version === kept.feedVersion &&
		sameSet(blocked, kept.blocked)
	return current && flags ? { kept, flags } : undefined
}

export const keepActivityPage = (key: string, page: KeptActivityPage) => pages.keep(key, page)
