// Plain new posts — no topics, no company widgets, nobody tagged, the bulk of
// POST /feed/post — written by ONE statement per batch (lib/coalesce.ts), which commits
// on its own: the posts, their fan-out jobs, feed marks and post.created events are
// CTEs of one insert, so the batch costs the authors' read and that statement, one
// commit, where a transaction costs BEGIN, a round trip and COMMIT. Postgres applies a
// statement whole or not at all, so the guarantees of the transaction hold: no post
// without its events, jobs and marks. A post with topics, widgets or tags goes through
// the group-committed transaction (post-batch.ts), which checks and locks its topics
// and writes its links, tags and activities; so does every post of a failed statement.
import { sql } from '../../lib/db'
import { type CachedPost, type FeedMark, feedManager } from '../../timelines'
import { recordEventsCtes } from '../../webhooks/outbox'
import { taggedUuids } from '../users/tags'
import { type ResolvedAttachments, resolveAttachments, writesRows } from './attachments'
import {
	communityOf,
	eventsOf,
	type NewPostRequest,
	readAhead,
	type Written,
	type WrittenPost,
	writtenOf,
} from './post-batch'
import { insertPostsWith } from './repo'

/** A post the one statement can write: nothing of it needs a check or a row beyond its own. */
export function isPlain(r: NewPostRequest): boolean {
	return (
		r.topicIds.length === 0 &&
		r.attachments.every((a) => !writesRows(a.attachment_type)) &&
		taggedUuids(r.heading, r.text).length === 0
	)
}

/**
 * Writes plain posts (isPlain) of one community (service.ts groups them) in one
 * statement; then caches and places them, as afterCommit would.
 */
export async function createPlain(requests: NewPostRequest[]): Promise<WrittenPost[]> {
	const [read, resolved] = await Promise.all([
		readAhead(sql, requests),
		// Without company widgets, nothing here queries.
		Promise.all(
			requests.map((r) =>
				resolveAttachments(sql, r.session.communityId, r.id, r.session.userId, r.attachments),
			),
		),
	])
	const written: Written[] = requests.map((r, i) =>
		writtenOf(r, resolved[i] as ResolvedAttachments, read),
	)
	const posts: CachedPost[] = written.map((w) => w.post)
	const feed = feedManager.postsCreatedCtes(sql, posts)
	const marks = await insertPostsWith<FeedMark>(
		sql,
		communityOf(requests),
		written.map((w) => w.row),
		feed.ctes,
		recordEventsCtes(
			sql,
			communityOf(requests),
			requests.flatMap((r, i) => eventsOf(r, written[i] as Written)),
		),
	)
	// Never throws (a Redis failure leaves the marks to the reconciler): nothing after the
	// commit may fail the batch, or coalesce would run its posts again (and answer
	// errors for posts that were written).
	await feed.placed(marks)
	return written.map(({ post, context }) => ({ post, context }))
}
