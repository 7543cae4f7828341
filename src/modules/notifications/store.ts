// The notification feed's Redis copy, per user (keys.activity*, one hash tag): the
// newest ACTIVITY_CACHE_MAX groups by updated_at with their records (present.ts
// activityRecord: what a page needs of the row, mostly already JSON), every unread
// group id (so the unread count is SCARD: exact), and the version of each. Postgres
// stays the truth: a missing copy is rebuilt from it on the next read.
//
// Writers change it after their transaction commits (lib/db.ts afterCommit), from the
// rows their statements returned. Commits and their after-commit writes can finish in
// either order, so every change carries the row's version and the script keeps the
// highest; a deleted group leaves a tombstone for 10 minutes so that a late write cannot
// bring it back. A rebuild marks the copy "building" (writers write into it), reads
// Postgres, then fills with its token: a fill overtaken by another rebuild is dropped.
//
// The copy's `page` version (in meta) counts its changes: every change goes through the
// apply script, which bumps it, and a rebuild starts it at random, so a page rendered
// from the copy (feed/kept-page.ts) is current while the version it was read with is.
import { randomUUID } from 'node:crypto'
import { sql } from '../../lib/db'
import { randomVersion } from '../../lib/ids'
import { keys } from '../../lib/keys'
import { log } from '../../lib/log'
import { redis } from '../../lib/redis'
import { pipelineBySlot } from '../../lib/redis-slots'
import { blocksFrom, flagsFrom, LOADED, type ViewerFlags, viewerSetKeys } from '../../timelines'
import { activityRecord, type PageActivity, parseRecord } from './present'
import { type ActivityRow, activitySnapshot } from './repo'

export const ACTIVITY_CACHE_MAX = 500
const LIFE_MS = 7 * 86_400_000
// The form of the records: a copy built with another form (an older release's) reads as
// not built, so the next read rebuilds it.
const RECORD_FORM = '2'
const TOMBSTONE_MS = 600_000

const keysOf = (userId: number) => [
	keys.activityMeta(userId),
	keys.activityFeed(userId),
	keys.activityRows(userId),
	keys.activityUnread(userId),
	keys.activityVersions(userId),
	keys.activityGone(userId),
]

// KEYS: meta feed rows unread versions gone. ARGV: cap, now, token ('' for a writer),
// complete ('1'/'0' ends a fill), then (op, id, version, score, json) per change.
redis.defineCommand('activityApply', {
	numberOfKeys: 6,
	lua: `local meta, feed, rows, unread, versions, gone = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local cap, now, token = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
if redis.call('exists', meta) == 0 then return 0 end
if token ~= '' and redis.call('hget', meta, 'build') ~= token then return 0 end
redis.call('zremrangebyscore', gone, '-inf', now - ${TOMBSTONE_MS})
for i = 5, #ARGV, 5 do
  local op, id, version = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if not redis.call('zscore', gone, id) then
    local current = redis.call('hget', versions, id)
    current = current and tonumber(current) or 0
    if op == 'del' then
      redis.call('zrem', feed, id)
      redis.call('hdel', rows, id)
      redis.call('srem', unread, id)
      redis.call('hdel', versions, id)
      redis.call('zadd', gone, now, id)
    elseif version > current then
      if op == 'read' then
        redis.call('srem', unread, id)
        if redis.call('zscore', feed, id) then
          redis.call('hset', versions, id, version)
        else
          redis.call('hdel', versions, id)
          redis.call('zadd', gone, now, id)
        end
      elseif op == 'unread' then
        redis.call('sadd', unread, id)
        redis.call('hset', versions, id, version)
      else
        local lowest = redis.call('zrange', feed, 0, 0, 'withscores')
        local outside = token == '' and redis.call('hget', meta, 'complete') == '0' and lowest[2]
          and tonumber(ARGV[i + 3]) < tonumber(lowest[2])
        if outside then
          -- older than everything a capped copy holds: only its unread state matters
          if op == 'set' then
            redis.call('sadd', unread, id)
            redis.call('hset', versions, id, version)
          else
            redis.call('srem', unread, id)
            redis.call('hdel', versions, id)
          end
        else
          redis.call('hset', versions, id, version)
          redis.call('zadd', feed, ARGV[i + 3], id)
          redis.call('hset', rows, id, ARGV[i + 4])
          if op == 'set' then redis.call('sadd', unread, id) else redis.call('srem', unread, id) end
        end
      end
    end
  end
end
local n = redis.call('zcard', feed)
if n > cap then
  local out = redis.call('zrange', feed, 0, n - cap - 1)
  redis.call('zremrangebyrank', feed, 0, n - cap - 1)
  for _, id in ipairs(out) do
    redis.call('hdel', rows, id)
    if redis.call('sismember', unread, id) == 0 then redis.call('hdel', versions, id) end
  end
  redis.call('hset', meta, 'complete', '0')
end
redis.call('hincrby', meta, 'page', 1)
if ARGV[4] ~= '' then
  redis.call('hset', meta, 'ready', '1')
  if ARGV[4] == '0' then redis.call('hset', meta, 'complete', '0') end
end
local life = redis.call('pttl', meta)
if life > 0 then
  for k = 2, 5 do redis.call('pexpire', KEYS[k], life) end
  redis.call('pexpire', gone, ${TOMBSTONE_MS})
end
return 1`,
})

// KEYS: meta unread. Nil until built; else the number of unread groups.
redis.defineCommand('activityUnread', {
	numberOfKeys: 2,
	lua: `if redis.call('hget', KEYS[1], 'ready') ~= '1' then return nil end
return redis.call('scard', KEYS[2])`,
})

type Op = 'set' | 'setread' | 'read' | 'unread' | 'del'
export interface Change {
	userId: number
	/** The recipient's community (its live `me` scope's tenant: notifications/live.ts). */
	communityId: number
	op: Op
	id: string
	version: number
	row?: ActivityRow
}

interface Commands {
	activityApply(...args: (string | number)[]): Promise<number>
	activityPage(...args: (string | number)[]): Promise<PageReply>
	activityUnread(meta: string, unread: string): Promise<number | null>
}
const commands = redis as unknown as Commands

const argsOf = (c: Change) => [
	c.op,
	c.id,
	c.version,
	c.row?.updated_at ?? 0,
	c.row ? activityRecord(c.row) : '',
]

/** A changed row as the copy takes it. */
export const rowChange = (row: ActivityRow): Change => ({
	userId: row.recipient_id,
	communityId: row.community_id,
	op: row.is_read ? 'setread' : 'set',
	id: row.id,
	version: row.version,
	row,
})

/**
 * Applies committed changes to the copies that exist (one script per user, pipelined
 * per slot). On failure the users' copies are dropped: the next read rebuilds them.
 */
export async function applyChanges(changes: Change[]): Promise<void> {
	if (changes.length === 0) return
	const byUser = new Map<number, Change[]>()
	for (const c of changes) byUser.set(c.userId, [...(byUser.get(c.userId) ?? []), c])
	const now = Date.now()
	try {
		const users = byUser.size > 16 ? await withCopies([...byUser.keys()]) : [...byUser.keys()]
		await pipelineBySlot(
			redis,
			users.map((userId) => [userId, byUser.get(userId) ?? []] as const),
			([userId]) => keys.activityMeta(userId),
			(pipeline, [userId, list]) => {
				;(pipeline as unknown as Commands).activityApply(
					...keysOf(userId),
					ACTIVITY_CACHE_MAX,
					now,
					'',
					'',
					...list.flatMap(argsOf),
				)
			},
		)
	} catch (error) {
		log.error({ err: error, users: byUser.size }, 'activity copy update failed')
		await Promise.all([...byUser.keys()].map((userId) => forget(userId)))
	}
}

/**
 * The users of a large batch (a custom activity to thousands) that have a copy: one
 * EXISTS each, so rows are sent only where a copy will take them. A copy created
 * meanwhile is built from Postgres after this commit, so it misses nothing.
 */
async function withCopies(userIds: number[]): Promise<number[]> {
	const found: number[] = []
	await pipelineBySlot(
		redis,
		userIds,
		(userId) => keys.activityMeta(userId),
		(pipeline, userId) => {
			pipeline.exists(keys.activityMeta(userId), (_error, exists) => {
				if (exists === 1) found.push(userId)
			})
		},
	)
	return found
}

const forget = (userId: number) => redis.del(keys.activityMeta(userId)).catch(() => undefined)

/** Rebuilds the user's copy from Postgres; false when another rebuild overtook this one. */
export async function rebuild(communityId: number, userId: number): Promise<boolean> {
	const token = randomUUID()
	const [meta, ...data] = keysOf(userId)
	await redis
		.multi()
		.del(meta, ...data)
		.hset(
			meta,
			'build',
			token,
			'complete',
			'1',
			'until',
			Date.now() + LIFE_MS,
			'form',
			RECORD_FORM,
			'page',
			randomVersion(),
		)
		.pexpire(meta, LIFE_MS)
		.exec()
	const { rows, unread } = await activitySnapshot(sql, communityId, userId, ACTIVITY_CACHE_MAX + 1)
	const shown = rows.slice(0, ACTIVITY_CACHE_MAX)
	const inFeed = new Set(shown.map((r) => r.id))
	const changes: Change[] = [
		...shown.map(rowChange),
		...unread
			.filter((u) => !inFeed.has(u.id))
			.map((u) => ({
				userId,
				communityId: u.community_id,
				op: 'unread' as const,
				id: u.id,
				version: u.version,
			})),
	]
	const applied = await commands.activityApply(
		meta,
		...data,
		ACTIVITY_CACHE_MAX,
		Date.now(),
		token,
		rows.length > ACTIVITY_CACHE_MAX ? '0' : '1',
		...changes.flatMap(argsOf),
	)
	return applied === 1
}

// KEYS: meta feed rows unread, then the viewer's blocks and flags sets (timelines
// viewerSetKeys; same hash tag). ARGV: offset, limit, form. Not built (or built with
// another form): {}. Else {complete, until, size, records, unread flags, blocks, the
// page's post ids, the flags set's answers (timelines flagQuestions), the page version}.
redis.defineCommand('activityPage', {
	numberOfKeys: 6,
	lua: `local ready, complete, life, form, version = unpack(redis.call('hmget', KEYS[1], 'ready', 'complete', 'until', 'form', 'page'))
if ready ~= '1' or form ~= ARGV[3] then return {} end
local offset = tonumber(ARGV[1])
local ids = redis.call('zrevrange', KEYS[2], offset, offset + tonumber(ARGV[2]) - 1)
local records, unread, posts = {}, {}, {}
if #ids > 0 then
  records = redis.call('hmget', KEYS[3], unpack(ids))
  unread = redis.call('smismember', KEYS[4], unpack(ids))
  for _, record in ipairs(records) do
    local post = record and string.match(record, '^0\t([^\t]*)')
    if post then posts[#posts + 1] = post end
  end
end
local questions = {'${LOADED}'}
for _, post in ipairs(posts) do questions[#questions + 1] = 'l' .. post end
for _, post in ipairs(posts) do questions[#questions + 1] = 's' .. post end
return {complete, life, redis.call('zcard', KEYS[2]), records, unread,
  redis.call('smembers', KEYS[5]), posts,
  redis.call('smismember', KEYS[6], unpack(questions)), version}`,
})

type PageReply =
	| []
	| [
			string,
			string,
			number,
			(string | null)[],
			number[],
			string[],
			string[],
			number[],
			string | null,
	  ]

export interface CachedPage {
	activities: PageActivity[]
	/** groups in the copy, and whether that is all of them */
	cached: number
	complete: boolean
	/** the copy's page version, read with the records (null in a copy built before there was one) */
	version: string | null
	/** the viewer's blocks and the flags of the page's posts; null where a set is not loaded */
	blocked: Set<number> | null
	flags: ViewerFlags | null
}

/**
 * Activities offset … offset + limit - 1 of the copy, newest first, with what the page
 * needs of the viewer's sets: ONE script call (one hash tag); null until it is built.
 */
export async function readPage(
	userId: number,
	offset: number,
	limit: number,
): Promise<CachedPage | null> {
	const [meta, feed, rows, unread] = keysOf(userId)
	const reply = await commands.activityPage(
		meta,
		feed,
		rows,
		unread,
		...viewerSetKeys(userId),
		offset,
		limit,
		RECORD_FORM,
	)
	if (reply.length === 0) return null
	const [complete, until, cached, records, flags, blocks, posts, answers, version] = reply
	keepAlive(userId, until)
	const activities: PageActivity[] = []
	records.forEach((record, i) => {
		if (record !== null) activities.push(parseRecord(record, flags[i] !== 1))
	})
	return {
		activities,
		cached,
		complete: complete === '1',
		version,
		blocked: blocksFrom(blocks),
		flags: flagsFrom(posts, answers),
	}
}

/**
 * The copy's page version (a plain HMGET): null while there is no copy; a rebuilt copy
 * starts anew at random, so no check of its state is needed beside it.
 */
export async function readPageVersion(userId: number): Promise<string | null> {
	const [version, until] = await redis.hmget(keys.activityMeta(userId), 'page', 'until')
	keepAlive(userId, until)
	return version
}

// Read copies live 7 days from their last read; refreshed once a day short of that.
function keepAlive(userId: number, until: string | null) {
	if (until !== null && Number(until) < Date.now() + LIFE_MS - 86_400_000) void refreshLife(userId)
}

function refreshLife(userId: number): Promise<unknown> {
	const [meta, ...data] = keysOf(userId)
	const multi = redis
		.multi()
		.pexpire(meta, LIFE_MS)
		.hset(meta, 'until', Date.now() + LIFE_MS)
	for (const key of data.slice(0, 4)) multi.pexpire(key, LIFE_MS)
	return multi.exec().catch((error) => log.warn({ err: error, userId }, 'activity copy life'))
}

/** The number of unread groups from the copy; null until it is built. */
export function readUnread(userId: number): Promise<number | null> {
	return commands.activityUnread(keys.activityMeta(userId), keys.activityUnread(userId))
}
