// Who may engage with a post: it exists in the viewer's community, is not deleted,
// and is visible to the viewer (private posts: author and CMs; connections posts:
// also the author's connections — the same rule as GET /feed/post). Anything else is 404,
// so ids of other communities and hidden posts are indistinguishable from unknown ones.
import type { Db } from '../../lib/db'
import { notFound } from '../../lib/errors'
import { isCm, type Session } from '../auth/session'
import { isConnected } from '../connections/repo'
import { findPost, type PostRow } from './repo'

// Inside a transaction every read goes through `db`: taking a second pool connection
// while holding one deadlocks the pool under load.

export async function visiblePost(
	db: Db,
	session: Session,
	postId: string,
	lock = false,
): Promise<PostRow> {
	return visibleTo(db, session, await findPost(db, session.communityId, postId, lock))
}

interface Visible {
	user_id: number
	visibility: string
	is_deleted: boolean
}

/**
 * The part of visibleTo that needs nothing but the post: it is live and public or the
 * viewer's own. (reactions/repo.ts setLikes writes likes of such posts only, in SQL.)
 */
export const openTo = <P extends Visible>(session: Session, post: P | null | undefined) =>
	!!post && !post.is_deleted && (post.visibility === 'public' || post.user_id === session.userId)

/** `post` as the caller read it (null: not found) when the viewer may engage with it, else 404. */
export async function visibleTo<P extends Visible>(
	db: Db,
	session: Session,
	post: P | null | undefined,
): Promise<P> {
	if (!post || post.is_deleted) throw notFound('Post')
	if (openTo(session, post)) return post
	if (isCm(session)) return post
	if (post.visibility === 'connections' && (await isConnected(db, session.userId, post.user_id))) {
		return post
	}
	throw notFound('Post')
}
