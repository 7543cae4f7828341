// The overview's counts (members, posts, comments) moved: a `stats` hint on the CMs'
// live `community` scope, after a member joined or a post or comment was committed.
//
// The hint carries no counts, on purpose. Counting a community's posts, comments and
// members is three count(*) scans that grow with the community (dashboard/repo.ts
// countCommunity); doing them on the write path — even once per burst — would make
// every busy community pay for them whether or not a CM is looking. Instead the writer
// publishes at most one hint per community every HINT_MS from this process (a Redis
// script, no SQL; lib/throttle.ts), and the dashboards that are open refetch `GET /community/overview`
// themselves, throttled on their side too (web/live.ts). A burst of 1,000 posts costs
// one publish per HINT_MS; the counts are read only by those who show them.
import { throttlePerKey } from '../../lib/throttle'
import { liveScopes, publishLive } from '../../live'

/** At most one hint per community per interval from one process. */
export const HINT_MS = 2_000

export type StatsCause = 'post.created' | 'comment.created' | 'member.joined'

interface Hint {
	communityId: number
	cause: StatsCause
}

const throttled = throttlePerKey<Hint>({
	windowMs: HINT_MS,
	// publishLive never throws: a refused publish is logged and owes the scope a reset.
	run: ({ communityId, cause }) =>
		publishLive(liveScopes.community(communityId), { type: 'stats', data: { cause } }),
})

/**
 * Tells the community's live CMs that its counts moved: at once when no hint went out
 * in the last HINT_MS, else once at the end of the interval (so the last change of a
 * burst is told too). Never throws, never waits.
 */
export function announceStats(communityId: number, cause: StatsCause): void {
	void throttled(String(communityId), { communityId, cause })
}
