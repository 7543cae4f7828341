// Who may engage with a post: the visibility rule (lib/visibility.ts) applied to the
// post as the caller read it, with the topics that hide a post and blocks not consulted
// (engaging with a post has never read them); a post the viewer hid or reported is gone
// for them here too (its comment page, its likes). Anything else is 404, so ids of other
// communities and hidden posts are indistinguishable from unknown ones.
import type { Db } from '../../lib/db'
import { notFound } from '../../lib/errors'
import { mayView, type RulePost, turnsOnConnection } from '../../lib/visibility'
import { type Session, viewerOf } from '../auth/session'
import { isConnected } from '../connections/repo'
import { isHiddenFor } from './hides-repo'
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

/** `post` as the caller read it (null: not found) when the viewer may engage with it, else 404. */
export async function visibleTo<P extends RulePost & { id: string }>(
	db: Db,
	session: Session,
	post: P | null | undefined,
): Promise<P> {
	if (!post) throw notFound('Post')
	const viewer = viewerOf(session)
	// The connection is read only when it decides: a connections post of someone else, for a member.
	const connected =
		turnsOnConnection(post, viewer) &&
		(await isConnected(db, viewer.communityId, viewer.userId, post.user_id))
	const hiddenByViewer = await isHiddenFor(db, viewer.communityId, viewer.userId, post.id)
	if (mayView(post, viewer, { connected, blocked: false, hiddenByViewer }, { keepHidden: true }))
		return post
	throw notFound('Post')
}
