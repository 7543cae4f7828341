// What a feed read needs of its viewer besides the page: the blocks and the flags
// (is_liked, is_saved), in the read's first round trip.
//
// A viewer whose flags set is small (most viewers) has it kept WHOLE in the process,
// under the flags version read with it in one script call: while a read's GET of the
// version finds it unchanged, the flags of any post are known without asking Redis. So
// a page computed for someone else (a shared page that changed, a new kept page) needs
// no flags command of its own. Every write of the set sets a new random version after
// the change (post-cache.ts setViewerFlags), a rebuild deletes both, and the script
// gives a set without one a version of its own, so a version is never absent while a
// whole set is kept under it (a version read as absent never matches).
//
// A larger set is asked per page (SMISMEMBER), and a kept page remembers the answers
// per viewer under the version they were read under (FlagsMemo).
import { randomVersion } from '../lib/ids'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import {
	flagMember,
	LOADED,
	VIEWER_TTL_SECONDS,
	type ViewerFlags,
	viewerBlocks,
	viewerFlags,
} from './post-cache'

/** Flags sets up to this many members are read whole and kept. */
const WHOLE_MAX_MEMBERS = 64
/** Viewers whose whole flags this process keeps, the oldest dropped first. */
const WHOLE_MAX_VIEWERS = 10_000
/** How long a viewer found with a larger set is asked per page before its size is read again. */
const LARGE_RETRY_MS = 60_000

// KEYS: the flags set, its version. ARGV: the largest set read whole, a new version, its TTL.
// Returns {version} for a larger set, {version, members} otherwise.
redis.defineCommand('wholeFlags', {
	numberOfKeys: 2,
	lua: `local v = redis.call('GET', KEYS[2])
if not v then
  v = ARGV[2]
  redis.call('SET', KEYS[2], v, 'EX', ARGV[3])
end
if redis.call('SCARD', KEYS[1]) > tonumber(ARGV[1]) then return {v} end
return {v, redis.call('SMEMBERS', KEYS[1])}`,
})

type WholeFlagsCommand = (
	setKey: string,
	versionKey: string,
	max: number,
	newVersion: string,
	ttl: number,
) => Promise<[string, string[]?]>

interface WholeFlags {
	version: string
	flags: ViewerFlags
}

const wholeFlags = new Map<number, WholeFlags>()
/** Viewers found with a larger set, and when. */
const largeSince = new Map<number, number>()

/** The viewer's whole flags, kept under their version; null for a larger set or one not loaded yet. */
async function readWholeFlags(userId: number): Promise<WholeFlags | null> {
	const [version, members] = await (
		redis as unknown as { wholeFlags: WholeFlagsCommand }
	).wholeFlags(
		keys.viewerFlags(userId),
		keys.viewerFlagsVersion(userId),
		WHOLE_MAX_MEMBERS,
		randomVersion(),
		VIEWER_TTL_SECONDS,
	)
	if (!members) {
		if (largeSince.size >= WHOLE_MAX_VIEWERS) largeSince.clear()
		largeSince.set(userId, Date.now())
		return null
	}
	if (!members.includes(LOADED)) return null // loaded from Postgres by viewerFlags
	const liked = new Set<string>()
	const saved = new Set<string>()
	for (const member of members) {
		if (member === LOADED) continue
		const postId = member.slice(1)
		if (member === flagMember('liked', postId)) liked.add(postId)
		else saved.add(postId)
	}
	const whole = { version, flags: { liked, saved } }
	wholeFlags.delete(userId)
	if (wholeFlags.size >= WHOLE_MAX_VIEWERS)
		wholeFlags.delete(wholeFlags.keys().next().value as number)
	wholeFlags.set(userId, whole)
	return whole
}

const isLarge = (userId: number) => {
	const since = largeSince.get(userId)
	return since !== undefined && Date.now() - since < LARGE_RETRY_MS
}

export interface ViewerState {
	blocked: Set<number>
	/** The viewer's flags of the kept page's posts (none kept: null), or of every post (`whole`). */
	flags: ViewerFlags | null
	/** The flags are the viewer's whole set: they answer for any post, not only the kept page's. */
	whole: boolean
}

/** A kept page's flags for one viewer, as read under the viewer's flags version (read first). */
interface FlagsMemo {
	version: string | null
	flags: ViewerFlags
}

/** What viewerState needs of a kept page: its posts, and where it keeps its viewers' flags. */
export interface FlagsHolder {
	page: { id: string }[]
	flagsOf?: Map<number, FlagsMemo>
}

/** Viewers whose flags one kept page remembers (a kept page lives at most MAX_AGE_MS). */
const FLAGS_MEMO_MAX = 256

/**
 * The viewer's blocks and flags in one round trip: the whole flags while their version
 * stands (read with them when none are kept); for a larger set, the kept page's flags as
 * the page remembers them under the version, or asked. A changed version reads them again
 * (a second round trip, once per change). Plain commands but for the whole set's script:
 * a script on every read cost Redis more than it saved (docs/feeds.md).
 */
export async function viewerState(userId: number, kept?: FlagsHolder): Promise<ViewerState> {
	const whole = wholeFlags.get(userId)
	const askWhole = !whole && !isLarge(userId)
	const memo = kept?.flagsOf?.get(userId)
	const ids = () => (kept as FlagsHolder).page.map((p) => p.id)
	// The version first: a write after it moves it, so flags read after it are never older.
	const [blocked, version, readWhole, read] = await Promise.all([
		viewerBlocks(userId),
		kept || whole ? redis.get(keys.viewerFlagsVersion(userId)) : null,
		askWhole ? readWholeFlags(userId) : null,
		kept && !memo && !askWhole && !whole ? viewerFlags(userId, ids()) : null,
	])
	if (readWhole) return { blocked, flags: readWhole.flags, whole: true }
	if (whole && whole.version === version) return { blocked, flags: whole.flags, whole: true }
	if (whole) {
		wholeFlags.delete(userId)
		const again = await readWholeFlags(userId)
		if (again) return { blocked, flags: again.flags, whole: true }
	}
	if (!kept) return { blocked, flags: null, whole: false }
	if (memo && memo.version === version) return { blocked, flags: memo.flags, whole: false }
	const flags = read ?? (await viewerFlags(userId, ids()))
	kept.flagsOf ??= new Map()
	if (kept.flagsOf.size >= FLAGS_MEMO_MAX) kept.flagsOf.clear()
	kept.flagsOf.set(userId, { version, flags })
	return { blocked, flags, whole: false }
}
