// Hiding a post for oneself (PUT /feed/post/:id/hide, feed-js hidePost): the post leaves
// the viewer's feeds, post page and comment page at once, and nobody else's. A report of
// a post hides it the same way for its reporter (modules/reports).
import { type Db, sql } from '../../lib/db'
import { notFound } from '../../lib/errors'
import { isId } from '../../lib/ids'
import { feedManager } from '../../timelines'
import type { Session } from '../auth/session'
import { visiblePost } from './access'
import { hidePostFor } from './hides-repo'

/** Hides the post for the session's user (404 when they cannot see it). */
export async function hidePost(session: Session, postId: string) {
	if (!isId(postId)) throw notFound('Post')
	await visiblePost(sql, session, postId)
	await hideFor(sql, session.communityId, session.userId, postId)
	await feedManager.onHiddenFor(session.userId)
	return { post_id: postId, is_hidden: true }
}

/**
 * Writes the hide in `db` (a report's transaction); the caller tells the feed engine
 * after the commit (feedManager.onHiddenFor).
 */
export const hideFor = (db: Db, communityId: number, userId: number, postId: string) =>
	hidePostFor(db, communityId, userId, postId, Date.now())
