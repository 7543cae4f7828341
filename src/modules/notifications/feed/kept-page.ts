// Page 1 of a user's notification feed kept in this process, rendered (the universal
// feed's shared pages' rule, timelines page-cache.ts): what it shows depends on the
// user's copy (its `page` version, bumped by every change, store.ts), on posts and users
// (the community's feed version, bumped by every writer of either), on the viewer's
// blocks (compared as a set) and on their liked/saved flags (left open in the bytes and
// filled per read). A warm page is one round trip of plain commands — the copy's
// version, the feed version, the blocks and the flags of the page's posts — and a
// splice. Pages embedding comments are not kept: an edited comment bumps no version.
import {
	type FlagTemplate,
	feedVersion,
	type Kept,
	KeptPages,
	viewerBlocks,
	viewerFlags,
} from '../../../timelines'
import type { Session } from '../../auth/session'
import { readPageVersion } from '../store'

export interface KeptActivityPage extends Kept {
	copyVersion: string
	feedVersion: string
	blocked: Set<number>
	/** `{"activities":[…],"users":{…}`, the posts' flags open */
	body: FlagTemplate
	/** what comes after the body: read again per use (topics and widgets are Postgres rows) */
	topicIds: string[]
	widgetIds: string[]
	total: number
	/** The bytes last served from it, and the flags and tail they were filled with. */
	served?: { variant: string; bytes: Buffer }
}

const pages = new KeptPages<KeptActivityPage>(
	(page) => page.body.parts.reduce((bytes, part) => bytes + part.length, 0),
	5000,
)

/** One user's page 1 as they asked for it (size, names or codes); the role decides menus. */
export const keptPageKey = (session: Session, pageSize: number, v1: boolean) =>
	`${session.userId}|${session.role}|${pageSize}|${v1 ? 1 : 0}`

const sameSet = (a: Set<number>, b: Set<number>) =>
	a.size === b.size && [...a].every((id) => b.has(id))

/**
 * The kept page under `key` and the viewer's current flags of its posts, when every
 * version it was rendered under still stands; else undefined (the caller renders it).
 */
export async function currentKeptPage(session: Session, key: string) {
	const kept = pages.get(key)
	if (!kept) return undefined
	const [copyVersion, version, blocked, flags] = await Promise.all([
		readPageVersion(session.userId),
		feedVersion(session.communityId),
		viewerBlocks(session.userId),
		viewerFlags(session.userId, kept.body.holes),
	])
	const current =
		copyVersion === kept.copyVersion &&
		version === kept.feedVersion &&
		sameSet(blocked, kept.blocked)
	return current ? { kept, flags } : undefined
}

export const keepActivityPage = (key: string, page: KeptActivityPage) => pages.keep(key, page)
