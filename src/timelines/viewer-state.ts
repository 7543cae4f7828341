// What a feed read needs of its viewer besides the page: the blocks and the flags
// (is_liked, is_saved), in the read's first round trip; and the writers that keep them
// true after a commit (through feed-manager.ts):
//
//   setViewerFlags('liked' | 'saved', [{ userId, postId, on }])
//                                           viewers' is_liked / is_saved changed
//                                           (one flags set per viewer: l<id>, s<id>).
//   forgetBlocks(userIds)                  a block between users was added/removed,
//                                           or the viewer hid or reported a post.
//
// The blocks set holds what leaves a viewer's pages for them alone: the user ids of
// blocks either way, `p<post id>` for each post the viewer hid or reported
// (hidden_posts), and what they reported in chat: `c<conversation id>` and `m<user id>`
// (that member's messages). blocksFrom reads them as Exclusions: the user ids, with the
// post ids and the chat ones beside them; a viewer without users or posts shares the
// feed pages of others (excludesNothing), one without chat ones the rooms' pages.
//
// Both sets are loaded lazily from Postgres (LOADED marks a set that holds everything)
// and share the viewer's hash tag ({u<id>}). A failed write is counted and logged
// (lib/redis-errors.ts); the sets expire (TTL) so they converge on Postgres anyway.
//
// A viewer whose flags set is small (most viewers) has it kept WHOLE in the process,
// under the flags version read with it in one script call: while a read's GET of the
// version finds it unchanged, the flags of any post are known without asking Redis. So
// a page computed for someone else (a shared page that changed, a new kept page) needs
// no flags command of its own. Every write of the set sets a new random version after
// the change (setViewerFlags), a rebuild deletes both, and the script gives a set
// without one a version of its own, so a version is never absent while a whole set is
// kept under it (a version read as absent never matches).
//
// A larger set is asked per page (SMISMEMBER), and a kept page remembers the answers
// per viewer under the version they were read under (FlagsMemo).
import { sql } from '../lib/db'
import { randomVersion } from '../lib/ids'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { quietly } from '../lib/redis-errors'
import { pipelineBySlot } from '../lib/redis-slots'
import { blockedUserIds, hiddenPostIds, likedPostIds, reportedInChat, savedPostIds } from './repo'

export const VIEWER_TTL_SECONDS = 86_400
/** Member present in a lazily loaded set once it holds everything Postgres has. */
export const LOADED = '.'

export async function forgetBlocks(userIds: number[]): Promise<void> {
	await quietly('forgetBlocks', () =>
		Promise.all(userIds.map((id) => redis.del(keys.viewerBlocks(id)))),
	)
}

export interface ViewerFlag {
	userId: number
	postId: string
	on: boolean
}

/** The member of a post in its viewer's flags set (keys.viewerFlags): l<id> liked, s<id> saved. */
export const flagMember = (kind: 'liked' | 'saved', postId: string) =>
	(kind === 'liked' ? 'l' : 's') + postId

/**
 * Adds or removes each post in its viewer's flags set, in the order given, in one
 * pipeline (a batch of likes); a set not loaded yet is filled from Postgres later.
 */
export async function setViewerFlags(kind: 'liked' | 'saved', flags: ViewerFlag[]): Promise<void> {
	await quietly('setViewerFlag', () =>
		pipelineBySlot(
			redis,
			flags,
			({ userId }) => keys.viewerFlags(userId),
			(pipeline, { userId, postId, on }) => {
				const key = keys.viewerFlags(userId)
				if (on) pipeline.sadd(key, flagMember(kind, postId)).expire(key, VIEWER_TTL_SECONDS)
				else pipeline.srem(key, flagMember(kind, postId))
				// After the change: a reader that finds the new version reads the set as changed.
				pipeline.set(keys.viewerFlagsVersion(userId), randomVersion(), 'EX', VIEWER_TTL_SECONDS)
			},
		),
	)
}

async function loadSet(key: string, load: () => Promise<(string | number)[]>): Promise<void> {
	const members = await load()
	await redis
		.multi()
		.sadd(key, LOADED, ...members.map(String))
		.expire(key, VIEWER_TTL_SECONDS)
		.exec()
}

/**
 * The viewer's lazily loaded sets — blocks, then the flags — in that order. They share
 * the viewer's hash tag ({u<id>}), so a script over the viewer's other keys may read them
 * too (SMEMBERS of the first, SMISMEMBER flagQuestions(postIds) of the second) and hand
 * the answers to blocksFrom / flagsFrom.
 */
export const viewerSetKeys = (userId: number) => [
	keys.viewerBlocks(userId),
	keys.viewerFlags(userId),
]

export interface ViewerFlags {
	liked: Set<string>
	saved: Set<string>
}

/**
 * User ids blocked either way, with (`posts`) the ids of posts the viewer hid or
 * reported, and (`chat`) the conversations and members they reported in chat.
 */
export type Exclusions = Set<number> & { posts?: ReadonlySet<string>; chat?: ChatExclusions }

export interface ChatExclusions {
	conversations: ReadonlySet<string>
	members: ReadonlySet<number>
}

/** The member of a post the viewer hid in the blocks set. */
const hiddenMember = (postId: string) => `p${postId}`

/** The viewer neither blocks nor is blocked nor hid a post: pages shared by such viewers fit. */
export const excludesNothing = (blocked: Exclusions) => blocked.size === 0 && !blocked.posts?.size

/** Blocked user ids and hidden posts from SMEMBERS of the blocks set; null while it is not loaded. */
export function blocksFrom(members: string[]): Exclusions | null {
	if (!members.includes(LOADED)) return null
	const users: Exclusions = new Set()
	const posts = new Set<string>()
	const conversations = new Set<string>()
	const chatMembers = new Set<number>()
	for (const member of members) {
		if (member === LOADED) continue
		if (member.startsWith('p')) posts.add(member.slice(1))
		else if (member.startsWith('c')) conversations.add(member.slice(1))
		else if (member.startsWith('m')) chatMembers.add(Number(member.slice(1)))
		else users.add(Number(member))
	}
	if (posts.size > 0) users.posts = posts
	if (conversations.size > 0 || chatMembers.size > 0)
		users.chat = { conversations, members: chatMembers }
	return users
}

/** The flags of `postIds` from the answers to SMISMEMBER flagQuestions(postIds); null while the set is not loaded. */
export function flagsFrom(postIds: string[], answers: number[]): ViewerFlags | null {
	if (!answers[0]) return null
	const liked = new Set<string>()
	const saved = new Set<string>()
	postIds.forEach((id, i) => {
		if (answers[1 + i] === 1) liked.add(id)
		if (answers[1 + postIds.length + i] === 1) saved.add(id)
	})
	return { liked, saved }
}

/** The SMISMEMBER arguments that ask a viewer's flags set for `postIds`: LOADED, each liked, each saved. */
export function flagQuestions(postIds: string[]): string[] {
	const questions = [LOADED]
	for (const id of postIds) questions.push(flagMember('liked', id))
	for (const id of postIds) questions.push(flagMember('saved', id))
	return questions
}

/** Who is reading: the user, and their community (where their rows are). */
export interface Reader {
	userId: number
	communityId: number
}

/** Which of `postIds` the viewer liked and saved: one SMISMEMBER, a load from Postgres on first use. */
export async function viewerFlags(
	{ userId, communityId }: Reader,
	postIds: string[],
): Promise<ViewerFlags> {
	const key = keys.viewerFlags(userId)
	const questions = flagQuestions(postIds)
	let answers = await redis.smismember(key, ...questions)
	if (!answers[0]) {
		await loadSet(key, async () => {
			const [liked, saved] = await Promise.all([
				likedPostIds(sql, communityId, userId),
				savedPostIds(sql, communityId, userId),
			])
			return [
				...liked.map((id) => flagMember('liked', id)),
				...saved.map((id) => flagMember('saved', id)),
			]
		})
		answers = await redis.smismember(key, ...questions)
	}
	return flagsFrom(postIds, answers) ?? { liked: new Set(), saved: new Set() }
}

/** User ids hidden from the viewer by a block in either direction, and the posts it hid. */
export async function viewerBlocks({ userId, communityId }: Reader): Promise<Exclusions> {
	const key = keys.viewerBlocks(userId)
	const blocked = blocksFrom(await redis.smembers(key))
	if (blocked) return blocked
	await loadSet(key, async () => {
		const [users, posts, chat] = await Promise.all([
			blockedUserIds(sql, communityId, userId),
			hiddenPostIds(sql, communityId, userId),
			reportedInChat(sql, communityId, userId),
		])
		return [
			...users,
			...posts.map(hiddenMember),
			...chat.conversations.map((id) => `c${id}`),
			...chat.members.map((id) => `m${id}`),
		]
	})
	return blocksFrom(await redis.smembers(key)) ?? new Set()
}

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
	blocked: Exclusions
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
export async function viewerState(reader: Reader, kept?: FlagsHolder): Promise<ViewerState> {
	const { userId } = reader
	const whole = wholeFlags.get(userId)
	const askWhole = !whole && !isLarge(userId)
	const memo = kept?.flagsOf?.get(userId)
	const ids = () => (kept as FlagsHolder).page.map((p) => p.id)
	// The version first: a write after it moves it, so flags read after it are never older.
	const [blocked, version, readWhole, read] = await Promise.all([
		viewerBlocks(reader),
		kept || whole ? redis.get(keys.viewerFlagsVersion(userId)) : null,
		askWhole ? readWholeFlags(userId) : null,
		kept && !memo && !askWhole && !whole ? viewerFlags(reader, ids()) : null,
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
	const flags = read ?? (await viewerFlags(reader, ids()))
	kept.flagsOf ??= new Map()
	if (kept.flagsOf.size >= FLAGS_MEMO_MAX) kept.flagsOf.clear()
	kept.flagsOf.set(userId, { version, flags })
	return { blocked, flags, whole: false }
}
