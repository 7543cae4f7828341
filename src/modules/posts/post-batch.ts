// The new posts of a group-committed batch (lib/group-commit.ts batchCommit) with
// set-based statements. Before the transaction, beside its BEGIN: the authors and the
// users the texts tag (readAhead, on the pool). Then ONE round trip whatever the batch's
// size: the posts (one insert), their topic links (one insert, with their topics'
// post_count deltas) and widget links, the tags and their activities, the fan-out jobs
// and feed marks (feedManager.onPostsCreated), the post.created / post.tagged events
// (one insert) and the topics as the links left them; COMMIT. A batch with topics sends
// its events in a second round trip (they show the topics with the counts the links
// changed). Each post's answer and cached form are built from what was written, never
// read back. A post whose topics are unknown or disabled fails the batch (its row is
// already written), so each post then runs alone and that one gets its 400.

import { afterCommit, type Db } from '../../lib/db'
import { badRequest } from '../../lib/errors'
import type { Outcome } from '../../lib/group-commit'
import { type CachedPost, feedManager } from '../../timelines'
import { type NewEvent, recordEvents } from '../../webhooks/outbox'
import type { Session } from '../auth/session'
import { onPostTagged } from '../notifications/service'
import { findTopicsByIds } from '../topics/repo'
import { presentUserForWebhook } from '../users/present'
import { findUsersByIds, findUsersByUuids, type UserRow } from '../users/repo'
import { taggedUuids } from '../users/tags'
import { type ResolvedAttachments, resolveAttachments } from './attachments'
import type { AttachmentInput, CreatePostInput } from './model'
import { type PostContext, presentPostEvent } from './present'
import { insertPosts, insertTags, insertWidgetLinks, linkTopicsOf, type NewPost } from './repo'

/** A POST /feed/post past its own checks (text, attachments' meta, created_at). */
export interface NewPostRequest {
	session: Session
	id: string
	heading: string
	text: string
	attachments: AttachmentInput[]
	visibility: NonNullable<CreatePostInput['visibility']>
	topicIds: string[]
	createdAt: number
	/** A back-dated import: no post.created, post.tagged nor tag activities. */
	history: boolean
}

export interface WrittenPost {
	post: CachedPost
	context: PostContext
}

/** 400 naming the first of `wanted` that is not an enabled topic among `found`. */
export function assertUsable(wanted: string[], found: { id: string; is_enabled: boolean }[]): void {
	const byId = new Map(found.map((t) => [t.id, t]))
	for (const id of wanted) {
		const topic = byId.get(id)
		if (!topic) throw badRequest(`Unknown topic ${id}`)
		if (!topic.is_enabled) throw badRequest(`Topic ${id} is disabled`)
	}
}

/** What a batch reads before it writes: the authors, and the users its texts tag (by community). */
export interface ReadAhead {
	authors: Map<number, UserRow>
	tagged: Map<number, UserRow[]>
}

/** The authors and tagged users of a batch: one statement each per community, sent together. */
export async function readAhead(db: Db, requests: NewPostRequest[]): Promise<ReadAhead> {
	const [authors, tagged] = await Promise.all([
		byCommunity(requests, (c, list) =>
			findUsersByIds(db, c, [...new Set(list.map((r) => r.session.userId))]),
		),
		byCommunity(requests, (c, list) =>
			findUsersByUuids(
				db,
				c,
				list.flatMap((r) => taggedUuids(r.heading, r.text)),
			),
		),
	])
	return { authors: new Map([...authors.values()].flat().map((u) => [u.id, u])), tagged }
}

/**
 * Writes the batch, posts of one community (service.ts groups them: each statement
 * names it). `ahead` is readAhead's answer when the batcher sent it with BEGIN
 * (else it is read here, first): then a batch without topics is ONE round trip between
 * BEGIN and COMMIT; with topics, its events wait for a second one (the topics as the
 * links left them).
 */
export async function createTogether(
	tx: Db,
	requests: NewPostRequest[],
	ahead: Promise<ReadAhead> = readAhead(tx, requests),
): Promise<Outcome<WrittenPost>[]> {
	// Only company widgets query (resolved or created in this transaction); the rest is pure.
	const [read, resolved] = await Promise.all([
		ahead,
		Promise.all(
			requests.map((r) =>
				resolveAttachments(tx, r.session.communityId, r.id, r.session.userId, r.attachments),
			),
		),
	])
	const written = requests.map((r, i) => writtenOf(r, resolved[i] as ResolvedAttachments, read))
	const posts = written.map((w) => w.post)
	const communityId = communityOf(requests)
	const withTopics = requests.some((r) => r.topicIds.length > 0)
	const events = () =>
		recordEvents(
			tx,
			requests.flatMap((r, i) => eventsOf(r, written[i] as Written)),
		)
	// Sent together: Postgres runs them in order, so the topics are read with the counts
	// these links just changed, and the first failure aborts the rest.
	const [, , , , topics, feed] = await Promise.all([
		insertPosts(
			tx,
			communityId,
			written.map((w) => w.row),
		),
		linkTopicsOf(
			tx,
			communityId,
			requests.flatMap((r) => r.topicIds.map((topicId) => ({ postId: r.id, topicId }))),
		),
		Promise.all(posts.map((post) => insertWidgetLinks(tx, communityId, post.id, post.widget_ids))),
		Promise.all(requests.map((r, i) => recordTags(tx, r, (written[i] as Written).tagged))),
		findTopicsByIds(tx, communityId, [...new Set(requests.flatMap((r) => r.topicIds))]),
		feedManager.onPostsCreated(tx, posts),
		!withTopics && events(),
	])
	const topicById = new Map(topics.map((t) => [t.id, t]))
	for (const [i, r] of requests.entries()) {
		// Only this community's topics were linked; an unknown or disabled one fails the post.
		assertUsable(r.topicIds, topics)
		;(written[i] as Written).context.topics = r.topicIds.flatMap((id) => topicById.get(id) ?? [])
	}
	if (withTopics) await events()
	afterCommit(tx, () => feed.afterCommit())
	return written.map(({ post, context }) => ({ ok: true, value: { post, context } }))
}

export interface Written extends WrittenPost {
	row: NewPost
	tagged: UserRow[]
}

/** The post's row, its cached form and its context (topics filled in once read). */
export function writtenOf(
	r: NewPostRequest,
	resolved: ResolvedAttachments,
	read: ReadAhead,
): Written {
	const uuids = new Set(taggedUuids(r.heading, r.text))
	const tagged = (read.tagged.get(r.session.communityId) ?? []).filter((u) => uuids.has(u.uuid))
	const row = rowOf(r, resolved)
	return {
		row,
		post: cachedPost(row, r, resolved.widgets, tagged),
		context: {
			topics: [],
			widgets: resolved.widgets,
			creator: read.authors.get(r.session.userId) ?? null,
		},
		tagged,
	}
}

/** The one community of a batch's requests (service.ts groups them by community). */
export function communityOf(requests: NewPostRequest[]): number {
	const c = requests[0]?.session.communityId ?? 0
	if (requests.some((r) => r.session.communityId !== c))
		throw new Error('a batch of posts of several communities')
	return c
}

/** One statement per community of the batch (one in the common case), sent together. */
async function byCommunity<T>(
	requests: NewPostRequest[],
	read: (communityId: number, list: NewPostRequest[]) => Promise<T[]>,
): Promise<Map<number, T[]>> {
	const groups = [...Map.groupBy(requests, (r) => r.session.communityId)]
	const found = await Promise.all(groups.map(([c, list]) => read(c, list)))
	return new Map(groups.map(([c], i) => [c, found[i] ?? []]))
}

function rowOf(r: NewPostRequest, resolved: ResolvedAttachments): NewPost {
	return {
		id: r.id,
		community_id: r.session.communityId,
		user_id: r.session.userId,
		heading: r.heading,
		text: r.text,
		attachments: resolved.attachments,
		visibility: r.visibility,
		created_at: r.createdAt,
		updated_at: r.createdAt,
		topic_ids: r.topicIds,
	}
}

/** A new post as its transaction writes it (nothing else can have touched it yet). */
function cachedPost(
	row: NewPost,
	r: NewPostRequest,
	widgets: { id: string }[],
	tagged: UserRow[],
): CachedPost {
	return {
		...row,
		author_uuid: r.session.uuid,
		is_pinned: false,
		is_edited: false,
		is_deleted: false,
		likes_count: 0,
		comments_count: 0,
		post_shared_count: 0,
		impressions_count: 0,
		reach_count: 0,
		topic_ids: [...r.topicIds].sort(),
		widget_ids: widgets.map((w) => w.id).sort(),
		tagged_user_ids: tagged.map((u) => u.id).sort((a, b) => a - b),
		// Every topic of a new post is enabled (checked), so none hides it.
		hidden: false,
		held: null,
	}
}

/**
 * The tag rows and the tagged users' activities of one post (none when nobody is
 * tagged): users/tags.ts tagUsers for a batch, whose tagged users were read together.
 */
async function recordTags(tx: Db, r: NewPostRequest, tagged: UserRow[]): Promise<void> {
	if (tagged.length === 0) return
	const ids = tagged.map((u) => u.id)
	await Promise.all([
		insertTags(tx, r.session.communityId, r.id, ids),
		onPostTagged(tx, {
			communityId: r.session.communityId,
			postId: r.id,
			taggedIds: ids,
			actorId: r.session.userId,
			history: r.history,
		}),
	])
}

/** post.created, and post.tagged when it tags anyone; history (a back-dated import) is not news. */
export function eventsOf(r: NewPostRequest, w: Written): NewEvent[] {
	if (r.history) return []
	const communityId = r.session.communityId
	const data = presentPostEvent(w.post, w.context)
	const events: NewEvent[] = [{ communityId, event: 'post.created', data }]
	if (w.tagged.length > 0)
		events.push({
			communityId,
			event: 'post.tagged',
			data: { ...data, tagged_users: w.tagged.map(presentUserForWebhook) },
		})
	return events
}
