// The data block shared by comment events (comment.added, comment.tagged,
// comment.react): the comment and its creator, then the post event data. Read inside
// the caller's transaction so the event carries the state being committed.

import type { Db } from '../../../lib/db'
import { recordEvent } from '../../../webhooks/outbox'
import { presentUserForWebhook } from '../../users/present'
import { findUserById, type UserRow } from '../../users/repo'
import { postEventData } from '../present'
import { presentComment } from './present'
import { type CommentRow, findComment } from './repo'

export async function commentEventData(db: Db, communityId: number, comment: CommentRow) {
	const [creator, parent, post] = await Promise.all([
		findUserById(db, communityId, comment.user_id),
		comment.parent_id
			? findComment(db, comment.community_id, comment.post_id, comment.parent_id)
			: null,
		postEventData(db, communityId, comment.post_id),
	])
	return {
		comment: presentComment(comment, null, {
			parent: parent ? presentComment(parent, null) : null,
		}),
		comment_creator: creator ? presentUserForWebhook(creator) : null,
		...post,
	}
}

export async function recordCommentEvent(
	db: Db,
	communityId: number,
	event: 'comment.added' | 'comment.tagged' | 'comment.react',
	comment: CommentRow,
	extra: { tagged_users?: UserRow[]; liked_by_user?: UserRow } = {},
): Promise<void> {
	const data: Record<string, unknown> = await commentEventData(db, communityId, comment)
	if (extra.tagged_users) data.tagged_users = extra.tagged_users.map(presentUserForWebhook)
	if (extra.liked_by_user) data.liked_by_user = presentUserForWebhook(extra.liked_by_user)
	await recordEvent(db, { communityId, event, data })
}
