// Reports and the review queue (DESIGN §17). A member files one open report per entity;
// a reported post is hidden for its reporter at once (hidden_posts, read by the
// visibility rule) and held back from everyone but CMs once `auto_hide_after_reports`
// distinct members have an open report on it. CMs read the queue (entities grouped, each
// with its reports, accused, reporters and tags) and close an entity's reports with one
// of the SDK's actions: approve lets a held post go, reject deletes the content. Every
// filing and closing is told to `report.created` / `report.closed` webhooks in its own
// transaction, and each reporter is notified when their report is closed.
import { type Db, sql, transaction } from '../../lib/db'
import { AppError, badRequest, conflict, Messages, notFound } from '../../lib/errors'
import { feedManager, loadPosts, presentFeedPost, presentFeedUser } from '../../timelines'
import { recordEvent } from '../../webhooks/outbox'
import { requireRole, type Session, viewerOf } from '../auth/session'
import type { ConversationRow } from '../conversations/repo'
import { announceHeld, holdConversations } from '../conversations/write'
import { leaveOrRemove } from '../members/departure'
import { announceQueue } from '../moderation/queue-live'
import { Action, EntityType } from '../notifications/model'
import { recordActivities } from '../notifications/service'
import { visiblePost } from '../posts/access'
import { findCommentsByIds } from '../posts/comments/repo'
import { deleteComment } from '../posts/comments/service'
import { hideFor } from '../posts/hides'
import { approvePending, rejectPending } from '../posts/pending'
import { deletePost } from '../posts/service'
import { moderationSettings, setModerationSettings } from '../settings/moderation'
import { findUsersByIds } from '../users/repo'
import {
	CLOSING_ACTIONS,
	type CloseInput,
	type ClosingAction,
	ENTITY_TYPES,
	type ModerationSettingsInput,
	QUEUE_TYPES,
	type QueueInput,
	type QueueType,
	type EntityType as ReportEntity,
	type ReportInput,
} from './model'
import { type Lookups, presentComment, presentReport, reportForWebhook } from './present'
import {
	accusedOf,
	closeReportsOf,
	findReports,
	holdPost,
	insertReport,
	lockConversation,
	lockPost,
	openReporters,
	queueEntities,
	type ReportRow,
	releasePosts,
	reportsOf,
} from './repo'
import { entityTypeOf, getTags } from './tags'
import { findTag, tagsByIds } from './tags-repo'

interface Entity {
	entity_type: QueueType
	entity_id: string
}

/** What a member reports (a pending post's handle is never filed by a report). */
interface Reported extends Entity {
	entity_type: ReportEntity
}

const present = (value: unknown) =>
	value !== undefined && value !== null && String(value) !== '' && String(value) !== 'undefined'

/** Numeric ids of conversations and chatrooms in one form ("007" is 7), as reads compare them. */
function canonicalId(type: ReportEntity, id: string): string {
	const numeric = type === 'conversation' || type === 'chatroom'
	return numeric && /^[0-9]{1,18}$/.test(id) ? String(BigInt(id)) : id
}

/** What is reported, as feed-js (entity_type, entity_id) or chat-js (conversation_id, reported_member_id) names it. */
function entityOf(input: ReportInput): Reported {
	if (present(input.entity_type)) {
		const type = entityTypeOf(input.entity_type as string | number)
		if (!present(input.entity_id)) throw badRequest('entity_id is required')
		return { entity_type: type, entity_id: canonicalId(type, String(input.entity_id)) }
	}
	if (present(input.conversation_id))
		return {
			entity_type: 'conversation',
			entity_id: canonicalId('conversation', String(input.conversation_id)),
		}
	if (present(input.reported_member_id))
		return { entity_type: 'member', entity_id: String(input.reported_member_id) }
	throw badRequest('entity_type is required (or conversation_id, or reported_member_id)')
}

const entityName = (type: ReportEntity) => type[0]?.toUpperCase() + type.slice(1)

/** Users and tags the reports name; inside a transaction pass it (a second pool connection can deadlock the pool). */
async function lookups(
	communityId: number,
	reports: ReportRow[],
	more: number[] = [],
	db: Db = sql,
) {
	const userIds = new Set<number>(more)
	for (const r of reports) {
		userIds.add(r.accused_user_id).add(r.reporter_user_id)
		if (r.closed_by !== null) userIds.add(r.closed_by)
	}
	const [users, tags] = await Promise.all([
		findUsersByIds(db, communityId, [...userIds]),
		tagsByIds(db, communityId, [
			...new Set(reports.flatMap((r) => (r.tag_id === null ? [] : [r.tag_id]))),
		]),
	])
	return {
		users: new Map(users.filter((u) => u.community_id === communityId).map((u) => [u.id, u])),
		tags: new Map(tags.map((t) => [t.id, t])),
	} satisfies Lookups
}

/** POST /community/report: files the report, hides a post for its reporter, holds it past the threshold. */
export async function fileReport(session: Session, input: ReportInput) {
	const c = session.communityId
	const entity = entityOf(input)
	const tagId = Number(input.tag_id)
	if (!Number.isSafeInteger(tagId) || tagId < 1) throw badRequest('tag_id must be a report tag id')
	await getTags(session, undefined) // the defaults exist before the first report
	const tag = await findTag(sql, c, tagId)
	if (!tag) throw badRequest('tag_id is not a report tag of this community')
	const reason = input.reason?.trim() || null
	if (tag.needs_reason && !reason) throw badRequest(`reason is required for the tag "${tag.name}"`)
	if (entity.entity_type === 'post') await visiblePost(sql, session, entity.entity_id)
	const accused = await accusedOf(sql, c, entity.entity_type, entity.entity_id)
	if (accused === null) throw notFound(entityName(entity.entity_type))
	if (accused === session.userId)
		throw badRequest('entity_id: you cannot report yourself or your own content')
	const threshold = (await moderationSettings(c)).auto_hide_after_reports
	const { report, held, heldConversations } = await transaction(async (tx) => {
		const report = await insertReport(tx, c, {
			...entity,
			accused_user_id: accused,
			reporter_user_id: session.userId,
			tag_id: tag.id,
			reason,
			created_at: Date.now(),
		})
		if (!report) throw conflict('You have already reported this; a CM has not decided yet')
		let held = false
		let heldConversations: ConversationRow[] = []
		if (entity.entity_type === 'post') {
			// Reports of one post take turns here, so each counts the ones before it.
			await lockPost(tx, c, entity.entity_id)
			await hideFor(tx, c, session.userId, entity.entity_id)
			const reporters = await openReporters(tx, c, 'post', entity.entity_id)
			if (reporters >= threshold) held = await holdPost(tx, c, entity.entity_id)
		}
		if (entity.entity_type === 'conversation') {
			await lockConversation(tx, c, entity.entity_id)
			const reporters = await openReporters(tx, c, 'conversation', entity.entity_id)
			if (reporters >= threshold)
				heldConversations = await holdConversations(tx, c, [entity.entity_id], true)
		}
		const found = await lookups(c, [report], [], tx)
		await recordEvent(tx, {
			communityId: c,
			event: 'report.created',
			data: reportForWebhook(report, found),
		})
		return { report: presentReport(report, found), held, heldConversations }
	})
	// The reporter's exclusions reload: the post leaves their feeds, a conversation or a
	// member's messages their chat pages (conversations/reported.ts).
	await feedManager.onHiddenFor(session.userId)
	if (held) await feedManager.onPostsHeld(c, [entity.entity_id])
	await announceHeld(heldConversations)
	announceQueue(c, 'report.created')
	return { report }
}

/** `page`/`page_size` as feed-js sends them (`undefined` when not given); 400 naming the field. */
function integer(value: string | undefined, field: string, fallback: number, max: number) {
	if (!present(value)) return fallback
	const n = Number(value)
	if (!Number.isInteger(n) || n < 1) throw badRequest(`${field} must be a positive integer`)
	return Math.min(n, max)
}

const FILTERS = QUEUE_TYPES

/** filter_type as a JSON array (feed-js) or a comma list; every entity type when absent. */
function filtersOf(raw: string | undefined): string[] {
	if (!present(raw)) return [...ENTITY_TYPES]
	let list: unknown
	try {
		list = (raw as string).trim().startsWith('[')
			? JSON.parse(raw as string)
			: (raw as string).split(',')
	} catch {
		throw badRequest('filter_type must be a JSON array or a comma list')
	}
	if (!Array.isArray(list)) throw badRequest('filter_type must be a JSON array or a comma list')
	const names = list.map((v) => String(v).trim().toLowerCase()).filter(Boolean)
	for (const name of names)
		if (!(FILTERS as readonly string[]).includes(name))
			throw badRequest(`filter_type must hold only ${FILTERS.join(', ')}`)
	return names.length > 0 ? names : [...ENTITY_TYPES]
}

function closedOf(raw: string | undefined): boolean {
	if (!present(raw)) return false
	if (raw === 'true' || raw === 'false') return raw === 'true'
	throw badRequest('is_closed must be true or false')
}

/** GET /community/report: a page of the queue (CMs only), in the SDK's GetReports shape. */
export async function getQueue(session: Session, query: QueueInput) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const c = session.communityId
	const page = integer(query.page, 'page', 1, 100_000)
	const pageSize = integer(query.page_size, 'page_size', 10, 100)
	const types = filtersOf(query.filter_type) as QueueType[]
	const closed = closedOf(query.is_closed)
	const entities =
		types.length === 0
			? []
			: await queueEntities(sql, c, types, closed, pageSize + 1, (page - 1) * pageSize)
	const hasMore = entities.length > pageSize
	const shown = entities.slice(0, pageSize)
	const reports = await reportsOf(sql, c, shown, closed)
	const postIds = shown
		.filter((e) => e.entity_type === 'post' || e.entity_type === 'pending_post')
		.map((e) => e.entity_id)
	const commentIds = shown
		.filter((e) => e.entity_type === 'comment' || e.entity_type === 'reply')
		.map((e) => e.entity_id)
	const [posts, comments] = await Promise.all([
		loadPosts(sql, c, postIds),
		findCommentsByIds(sql, c, commentIds),
	])
	const found = await lookups(
		c,
		reports,
		posts.map((p) => p.user_id),
	)
	const viewer = viewerOf(session)
	const users: Record<string, ReturnType<typeof presentFeedUser>> = {}
	for (const user of found.users.values()) users[user.uuid] = presentFeedUser(user)
	const reports_data = shown.map((entity) => {
		const own = reports.filter(
			(r) => r.entity_type === entity.entity_type && r.entity_id === entity.entity_id,
		)
		return {
			entity_id: entity.entity_id,
			entity_type: entity.entity_type,
			reports: own.map((r) => presentReport(r, found)),
			reports_count: own.length,
			reporters_count: new Set(own.map((r) => r.reporter_user_id)).size,
		}
	})
	return {
		reports_data,
		posts: Object.fromEntries(
			posts.map((p) => [p.id, presentFeedPost(p, viewer, { isLiked: false, isSaved: false })]),
		),
		comments: Object.fromEntries(
			comments.filter((cm) => cm.community_id === c).map((cm) => [cm.id, presentComment(cm)]),
		),
		users,
		reposted_posts: {},
		topics: {},
		user_topics: {},
		widgets: {},
		page,
		page_size: pageSize,
		has_more: hasMore,
	}
}

const POST_ACTIONS: ClosingAction[] = ['POST_APPROVED', 'POST_REJECTED']
const PENDING_ACTIONS: ClosingAction[] = ['PENDING_POST_APPROVED', 'PENDING_POST_REJECTED']
const COMMENT_ACTIONS: ClosingAction[] = ['COMMENT_APPROVED', 'COMMENT_REJECTED']

/** The action fits every reported entity (a post action for posts, a comment action for comments and replies). */
function checkFits(action: ClosingAction, entities: Entity[]) {
	for (const { entity_type } of entities) {
		if (POST_ACTIONS.includes(action) && entity_type !== 'post')
			throw badRequest(`action_taken ${action} closes reports of posts, not of a ${entity_type}`)
		if (PENDING_ACTIONS.includes(action) !== (entity_type === 'pending_post'))
			throw badRequest(
				`action_taken ${action} does not close ${entity_type === 'pending_post' ? 'a pending post' : `reports of a ${entity_type}`}`,
			)
		if (COMMENT_ACTIONS.includes(action) && entity_type !== 'comment' && entity_type !== 'reply')
			throw badRequest(`action_taken ${action} closes reports of comments, not of a ${entity_type}`)
	}
}

/** Deletes rejected content with the CM's own rights (the posts and comments routes' deletion). */
async function reject(session: Session, action: ClosingAction, entities: Entity[]) {
	const reason = 'Removed by a community manager after reports'
	const gone = (error: unknown) => {
		if (!(error instanceof AppError && error.status === 404)) throw error
	}
	if (action === 'POST_REJECTED')
		for (const { entity_id } of entities) await deletePost(session, entity_id, reason).catch(gone)
	if (action === 'COMMENT_REJECTED') {
		const comments = await findCommentsByIds(
			sql,
			session.communityId,
			entities.map((e) => e.entity_id),
		)
		for (const comment of comments)
			if (comment.community_id === session.communityId && !comment.is_deleted)
				await deleteComment(session, comment.post_id, comment.id, reason).catch(gone)
	}
}

/** REMOVE_FROM_COMMUNITY: the accused of every entity leave the community (members/departure.ts). */
async function removeAccused(session: Session, reports: ReportRow[]) {
	const accused = await findUsersByIds(sql, session.communityId, [
		...new Set(reports.map((r) => r.accused_user_id)),
	])
	const uuids = accused.filter((u) => u.community_id === session.communityId).map((u) => u.uuid)
	if (uuids.includes(session.uuid)) throw badRequest('report_ids: you cannot remove yourself')
	await leaveOrRemove(session, uuids)
}

/**
 * PATCH /community/report: closes every open report of the reported entities with the
 * action, recorded with who and when. EDIT_MEMBER_PERMISSION records the decision; the
 * rights themselves change through PATCH /moderation/rights.
 */
export async function closeReports(session: Session, input: CloseInput) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const c = session.communityId
	const action = input.action_taken as ClosingAction
	if (!CLOSING_ACTIONS.includes(action))
		throw badRequest(`action_taken must be one of ${CLOSING_ACTIONS.join(', ')}`)
	const ids = [...new Set(input.report_ids)]
	const asked = await findReports(sql, c, ids)
	if (asked.length !== ids.length) throw notFound('Report')
	const entities = uniqueEntities(asked)
	checkFits(action, entities)
	await reject(session, action, entities)
	if (action === 'REMOVE_FROM_COMMUNITY') await removeAccused(session, asked)
	for (const { entity_id } of entities) {
		if (action === 'PENDING_POST_APPROVED') await approvePending(session, entity_id)
		if (action === 'PENDING_POST_REJECTED') await rejectPending(session, entity_id)
	}
	const { closed, released, releasedConversations } = await transaction(async (tx) => {
		const now = Date.now()
		const closed = await closeReportsOf(tx, c, entities, action, session.userId, now)
		const released =
			action === 'POST_APPROVED'
				? await releasePosts(
						tx,
						c,
						entities.map((e) => e.entity_id),
					)
				: []
		// Closing a conversation's reports is the CM's decision: it is let go (a CM who
		// wants it gone deletes it as any CM may, DELETE /conversation).
		const releasedConversations = await holdConversations(
			tx,
			c,
			entities.filter((e) => e.entity_type === 'conversation').map((e) => e.entity_id),
			false,
		)
		const found = await lookups(c, closed, [session.userId], tx)
		// A pending post's handle is no report: its author is told by pending.ts, no webhook.
		const reports = closed.filter((r) => r.entity_type !== 'pending_post')
		for (const report of reports)
			await recordEvent(tx, {
				communityId: c,
				event: 'report.closed',
				data: reportForWebhook(report, found),
			})
		const reporters = [...new Set(reports.map((r) => r.reporter_user_id))]
		for (const reporterId of reporters) {
			const reporter = found.users.get(reporterId)
			if (!reporter) continue
			await recordActivities(tx, {
				communityId: c,
				action: Action.custom,
				entityType: EntityType.user,
				entityId: reporter.uuid,
				postId: null,
				commentId: null,
				actorId: session.userId,
				recipientIds: [reporterId],
				grouped: false,
				customText: 'A community manager reviewed your report',
			})
		}
		return { closed: closed.map((r) => presentReport(r, found)), released, releasedConversations }
	})
	if (released.length > 0) await feedManager.onPostsHeld(c, released)
	await announceHeld(releasedConversations)
	announceQueue(c, 'report.closed')
	return { reports: closed, action_taken: action }
}

function uniqueEntities(reports: ReportRow[]): Entity[] {
	const seen = new Map<string, Entity>()
	for (const r of reports)
		seen.set(`${r.entity_type}:${r.entity_id}`, {
			entity_type: r.entity_type,
			entity_id: r.entity_id,
		})
	return [...seen.values()]
}

/** GET|PUT /community/settings/moderation. */
export const getModerationSettings = (session: Session) => moderationSettings(session.communityId)

export async function putModerationSettings(session: Session, input: ModerationSettingsInput) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const change = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
	if (Object.keys(change).length === 0)
		throw badRequest(
			'auto_hide_after_reports, post_moderation or post_moderation_first_n is required',
		)
	return setModerationSettings(session.communityId, change)
}
