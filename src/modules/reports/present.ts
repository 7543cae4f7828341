// Reports as the SDKs read them (feed-js Report, GroupReport, GetReports) and as the
// report.created / report.closed webhooks carry them.
import type { CommentRow } from '../posts/comments/repo'
import { presentUser, presentUserForWebhook } from '../users/present'
import type { UserRow } from '../users/repo'
import { ACTIONS_TAKEN } from './model'
import type { ReportRow } from './repo'
import type { TagRow } from './tags-repo'

export interface Lookups {
	users: Map<number, UserRow>
	tags: Map<number, TagRow>
}

const userOf = (lookups: Lookups, id: number | null) => {
	const user = id === null ? undefined : lookups.users.get(id)
	return user ? presentUser(user) : undefined
}

/** The SDK's ActionTaken number of a stored action. */
export const actionNumber = (action: string | null) => {
	const i = (ACTIONS_TAKEN as readonly string[]).indexOf(action ?? '')
	return i < 0 ? undefined : i
}

export function presentReport(report: ReportRow, lookups: Lookups) {
	const tag = report.tag_id === null ? undefined : lookups.tags.get(report.tag_id)
	return {
		id: report.id,
		type: report.entity_type,
		entity_id: report.entity_id,
		accused_user: userOf(lookups, report.accused_user_id),
		reported_by_user: userOf(lookups, report.reporter_user_id),
		reported_on: report.created_at,
		tag: tag ? { id: tag.id, name: tag.name } : undefined,
		reason: report.reason ?? undefined,
		is_closed: report.is_closed,
		closed_on: report.closed_at ?? undefined,
		closed_by: userOf(lookups, report.closed_by),
		action_taken: actionNumber(report.action_taken),
		action_taken_by: userOf(lookups, report.closed_by),
	}
}

export function presentComment(comment: CommentRow) {
	return {
		_id: comment.id,
		id: comment.id,
		post_id: comment.post_id,
		parent_id: comment.parent_id,
		level: comment.level,
		text: comment.text,
		uuid: comment.uuid,
		user_id: comment.uuid,
		likes_count: comment.likes_count,
		comments_count: comment.comments_count,
		is_edited: comment.is_edited,
		is_deleted: comment.is_deleted,
	}
}

/** A report as a webhook tells it (DESIGN §10 envelope's `data`). */
export function reportForWebhook(report: ReportRow, lookups: Lookups) {
	const user = (id: number | null) => {
		const found = id === null ? undefined : lookups.users.get(id)
		return found ? presentUserForWebhook(found) : null
	}
	const tag = report.tag_id === null ? undefined : lookups.tags.get(report.tag_id)
	return {
		report: {
			id: report.id,
			entity_type: report.entity_type,
			entity_id: report.entity_id,
			tag: tag ? { id: tag.id, name: tag.name } : null,
			reason: report.reason,
			created_at: report.created_at,
			is_closed: report.is_closed,
			action_taken: report.action_taken,
			closed_at: report.closed_at,
		},
		reported_by: user(report.reporter_user_id),
		accused: user(report.accused_user_id),
		closed_by: user(report.closed_by),
	}
}
