// A process-local copy of each poll's rules and option ids, so a vote does not read
// the poll before writing its ballot (the hot path of polls). What a poll is made of
// never changes once written — type, select rule, expiry, vote change — except that
// options may be added; so the copy is safe to use as long as:
//  - an option missing from it means "look again" (an option added by another process
//    since), never "unknown" — see `pollWithOptions`;
//  - whether the poll is still there (deleted conversation or room) is checked by the
//    vote statement itself, not here.
// Entries live a minute and at most MAX_ENTRIES are kept (oldest dropped first).
import type { Db } from '../../lib/db'
import type { PollRow } from './model'
import { findPoll } from './repo'

export type PollWithOptions = PollRow & { option_ids: string[] }

const TTL_MS = 60_000
const MAX_ENTRIES = 10_000
const entries = new Map<string, { poll: PollWithOptions; at: number }>()

function remember(poll: PollWithOptions, now: number) {
	entries.delete(poll.conversation_id)
	if (entries.size >= MAX_ENTRIES) {
		const oldest = entries.keys().next().value
		if (oldest !== undefined) entries.delete(oldest)
	}
	entries.set(poll.conversation_id, { poll, at: now })
}

/**
 * The poll of `conversationId` in the community with every option in `wanted` known,
 * if the poll has them: served from the copy when it knows them all, read again
 * otherwise. Null when there is no live poll of that id in the community.
 */
export async function pollWithOptions(
	db: Db,
	communityId: number,
	conversationId: string,
	wanted: (string | null)[],
	now = Date.now(),
): Promise<PollWithOptions | null> {
	const entry = entries.get(conversationId)
	if (entry && now - entry.at < TTL_MS && entry.poll.community_id === communityId) {
		const known = new Set(entry.poll.option_ids)
		if (wanted.every((id) => id !== null && known.has(id))) return entry.poll
	}
	const poll = await findPoll(db, communityId, conversationId)
	if (poll) remember(poll, now)
	else entries.delete(conversationId)
	return poll
}

/** Drops the copy (an option was added here; other processes look again on a miss). */
export const forgetPoll = (conversationId: string) => entries.delete(conversationId)
