// The comment shape (SPEC "Comment (webhook form)"), used by the REST routes too,
// with the viewer's is_liked and menu_items.
import type { CommentRow } from './repo'

export interface CommentViewer {
	userId: number
	isCm: boolean
	postAuthorId: number
	liked: Set<string>
}

const Menu = {
	delete: { id: 6, title: 'Delete' },
	report: { id: 7, title: 'Report' },
	edit: { id: 8, title: 'Edit' },
} as const

/** Commenter: delete, edit. CM or the post's author: delete, report. Anyone else: report. */
export function commentMenu(comment: CommentRow, viewer: CommentViewer) {
	if (comment.is_deleted) return []
	if (comment.user_id === viewer.userId) return [Menu.delete, Menu.edit]
	if (viewer.isCm || viewer.postAuthorId === viewer.userId) return [Menu.delete, Menu.report]
	return [Menu.report]
}

export interface PresentedComment {
	_id: string
	id: string
	temp_id: string | null
	text: string
	level: number
	uuid: string
	user_id: string
	community_id: number
	post_id: string
	is_liked: boolean
	likes_count: number
	comments_count: number
	is_edited: boolean
	is_deleted: boolean
	deleted_by: string | null
	deleted_by_uuid: string | null
	delete_reason: string | null
	parent_comment: PresentedComment | null
	replies: PresentedComment[]
	menu_items: { id: number; title: string }[]
	created_at: number
	updated_at: number
}

export function presentComment(
	comment: CommentRow,
	viewer: CommentViewer | null,
	extra: { parent?: PresentedComment | null; replies?: PresentedComment[] } = {},
): PresentedComment {
	return {
		_id: comment.id,
		id: comment.id,
		temp_id: comment.temp_id,
		// A deleted comment keeps its place (and replies) but not its words.
		text: comment.is_deleted ? '' : comment.text,
		level: comment.level,
		uuid: comment.uuid,
		user_id: comment.uuid,
		community_id: comment.community_id,
		post_id: comment.post_id,
		is_liked: viewer?.liked.has(comment.id) ?? false,
		likes_count: comment.likes_count,
		comments_count: comment.comments_count,
		is_edited: comment.is_edited,
		is_deleted: comment.is_deleted,
		deleted_by: comment.deleted_by === null ? null : String(comment.deleted_by),
		deleted_by_uuid: comment.deleted_by_uuid,
		delete_reason: comment.delete_reason,
		parent_comment: extra.parent ?? null,
		replies: extra.replies ?? [],
		menu_items: viewer ? commentMenu(comment, viewer) : [],
		created_at: comment.created_at,
		updated_at: comment.updated_at,
	}
}
