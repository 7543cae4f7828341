// The overview's counts (members, posts, comments) moved: a `stats` hint on the CMs'
// live `community` scope, after a member joined or a post or comment was committed.
//
// The hint carries no counts, on purpose. Counting a community's posts, comments and
// members is three count(*) scans that grow with the community (dashboard/repo.ts
// countCommunity); doing them on the write path — even once per burst — would make
// every busy community pay for them whether or not a CM is looking. Instead the writer
// publishes at most one hint per community every HINT_MS from this process (a Redis
// script, no SQL), and the dashboards that are open refetch `GET /community/overview`
// themselves, throttled on their side too (web/live.ts). A burst of 1,000 posts costs
// one publish per HINT_MS; the counts are read only by those who show them.
import { liveScopes, publishLive } from '../../live'

/** At most one hint per community per interval from one process. */
export const HINT_MS = 2_000

export type StatsCause = 'post.created' | 'comment.created' | 'member.joined'

interface Pending {
	lastSent: number
	timer?: ReturnType<typeof setTimeout>
	cause?: StatsCause
}

// One small entry per community written to lately; past PRUNE_AT entries, those whose
// interval is over (no hint owed) are dropped, so many tenants do not grow it for good.
const communities = new Map<number, Pending>()
const PRUNE_AT = 10_000

function prune(now: number): void {
	for (const [id, state] of communities)
		if (!state.timer && now - state.lastSent >= HINT_MS) communities.delete(id)
}

function send(communityId: number, cause: StatsCause): void {
	void publishLive(liveScopes.community(communityId), { type: 'stats', data: { cause } })
}

/**
 * Tells the community's live CMs that its counts moved: at once when no hint went out
 * in the last HINT_MS, else once at the end of the interval (so the last change of a
 * burst is told too). Never throws, never waits.
 */
export function announceStats(communityId: number, cause: StatsCause, now = Date.now()): void {
	const state = communities.get(communityId)
	if (!state || now - state.lastSent >= HINT_MS) {
		if (state?.timer) clearTimeout(state.timer)
		if (!state && communities.size >= PRUNE_AT) prune(now)
		communities.set(communityId, { lastSent: now })
		send(communityId, cause)
		return
	}
	state.cause = cause
	if (state.timer) return
	state.timer = setTimeout(
		() => {
			state.timer = undefined
			state.lastSent = Date.now()
			send(communityId, state.cause ?? cause)
		},
		HINT_MS - (now - state.lastSent),
	)
	state.timer.unref?.()
}
