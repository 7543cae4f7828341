// A plain page of the universal feed (no filter, no cursor) read in ONE script call when
// a shared page must be computed (after every post, and whenever a kept page ages out):
// the page's entries, their cached posts and their authors' cached forms, all in the
// community's slot ({c<id>}), where the plan, the posts and the authors were three round
// trips one after another. What the script does not find cached is read through as
// usual (post-cache.ts, user-cache.ts), so a miss costs what it did.
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { getPostViews } from './post-cache'
import { decodeView, type PostView } from './post-encoding'
import { getUserViews } from './user-cache'

// KEYS: the sorted set. ARGV: first and last rank, the post and user cache prefixes.
// Returns {entries (id, score, …), posts (each or nil), authors (id, form or nil, …)}.
// A cached post starts with its header, `{"user_id":<id>,…` (post-encoding.ts encodePost).
redis.defineCommand('feedPageOf', {
	numberOfKeys: 1,
	lua: `local raw = redis.call('ZREVRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
local posts, users, seen = {}, {}, {}
for i = 1, #raw, 2 do
  local post = redis.call('GET', ARGV[3] .. raw[i])
  posts[#posts + 1] = post
  if post then
    local author = string.match(post, '^{"user_id":(%d+)')
    if author and not seen[author] then
      seen[author] = true
      users[#users + 1] = author
      users[#users + 1] = redis.call('GET', ARGV[4] .. author)
    end
  end
end
return {raw, posts, users}`,
})

type FeedPageOf = (
	key: string,
	first: number,
	last: number,
	postPrefix: string,
	userPrefix: string,
) => Promise<[Buffer[], (Buffer | null)[], (Buffer | null)[]]>

export interface PlainPage {
	/** The set's entries from the offset on, newest first. */
	entries: { id: string; score: number }[]
	views: Map<string, PostView>
	users: Map<number, Buffer>
}

/** `count` entries of the community's universal feed from rank `offset`, with their posts and authors. */
export async function readPlainPage(
	communityId: number,
	offset: number,
	count: number,
): Promise<PlainPage> {
	const [raw, posts, authors] = await (
		redis as unknown as { feedPageOfBuffer: FeedPageOf }
	).feedPageOfBuffer(
		keys.universalFeed(communityId),
		offset,
		offset + count - 1,
		keys.postCache(communityId, ''),
		keys.userCache(communityId, ''),
	)
	const entries: PlainPage['entries'] = []
	for (let i = 0; i < raw.length; i += 2)
		entries.push({ id: String(raw[i]), score: Number(String(raw[i + 1])) })
	const views = new Map<string, PostView>()
	const missing: string[] = []
	entries.forEach(({ id }, i) => {
		const post = posts[i]
		if (post) views.set(id, decodeView(post))
		else missing.push(id)
	})
	for (const [id, view] of await getPostViews(communityId, missing)) views.set(id, view)
	const users = new Map<number, Buffer>()
	for (let i = 0; i < authors.length; i += 2) {
		const form = authors[i + 1]
		if (form) users.set(Number(String(authors[i])), form)
	}
	const unread = [...new Set([...views.values()].map((v) => v.header.user_id))].filter(
		(id) => !users.has(id),
	)
	for (const [id, form] of await getUserViews(communityId, unread)) users.set(id, form)
	return { entries, views, users }
}
