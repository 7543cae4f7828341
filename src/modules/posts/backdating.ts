// When a write is history rather than news. A migration replays a community's past:
// posts, comments, replies and likes arrive with a `created_at` in the past. History
// creates no notification activity, push or webhook event, so every writer asks
// isBackDated() before emitting one — this file is that rule's only home.
import { badRequest } from '../../lib/errors'

/** How far ahead of our clock a client's `created_at` may be (clock skew). */
export const FUTURE_SLACK_MS = 5 * 60_000
/** A `created_at` this far behind our clock is history; anything closer is skew. */
export const BACK_DATED_AFTER_MS = 5 * 60_000

/** The time a write is recorded at: the client's `created_at` if given, else now; 400 if too far ahead. */
export function writtenAt(createdAt: number | undefined, now: number): number {
	if (createdAt === undefined) return now
	if (createdAt > now + FUTURE_SLACK_MS)
		throw badRequest('created_at may be at most 5 minutes in the future')
	return createdAt
}

/** True when a write at `createdAt` is history (a migration), not news: emit no activity, push or webhook. */
export const isBackDated = (createdAt: number, now: number): boolean =>
	createdAt < now - BACK_DATED_AFTER_MS
