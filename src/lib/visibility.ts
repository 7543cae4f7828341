// Who may see a post: the one home of the rule, as a SQL fragment and its in-memory
// twin side by side (test/posts/visibility.test.ts holds them equal over every
// case). Every read that filters posts for a viewer — repositories, the feed engine's
// hydration of cached posts, the checks before engaging with a post — asks here.
//
// The rule: the post is in the viewer's community, not deleted, no block stands
// between viewer and author, the viewer did not hide it (their own hide or their own
// report: hidden_posts), moderation does not hold it back (auto-hidden past the report
// threshold, or pending approval: until a CM decides, only CMs — and a pending post's
// author — see it, and only where hidden posts are kept (the post page, the author's own
// list), so no feed shows it and no page shared between viewers differs), its topics do not hide it (unless the
// place keeps hidden posts), and it is the viewer's own, public, seen by a CM, or a
// connections post of someone the viewer follows. A new case is one more input here — a
// field of PostViewer, Standing or RulePost, a clause in both forms — never a copy
// elsewhere.
//
// Narrower rules of where a post is listed live beside it: which posts reach
// followers' feeds (fan-out, the connection and personalised feeds: live, public or
// connections) and which the community's shared sets list (universal, topic and widget
// feeds: live and public).
import type postgres from 'postgres'
import type { Db } from './db'
import { blockedBetween, hiddenByTopics } from './sql-rules'

type Fragment = postgres.Fragment

export type Visibility = 'public' | 'connections' | 'private'

export const VISIBILITIES: readonly Visibility[] = ['public', 'connections', 'private']

/** Who is looking. */
export interface PostViewer {
	userId: number
	communityId: number
	isCm: boolean
}

/** What the rule reads of a post (a row, a cached post). */
export interface RulePost {
	community_id: number
	user_id: number
	visibility: string
	is_deleted: boolean
	/** Every topic of the post is disabled (cached posts carry it; rows leave it out: not hidden). */
	hidden?: boolean
	/**
	 * Held back by moderation: 'auto_hidden' (CMs only) or 'pending' (its author and CMs),
	 * only where hidden posts are kept. Absent or null: not held.
	 */
	held?: string | null
}

/**
 * How the viewer stands to the post's author. The SQL form reads these from their
 * tables; the in-memory form is told them by its caller, who read them (or vouches for
 * them: a connection feed holds only posts of people the viewer follows).
 */
export interface Standing {
	/** The viewer follows the author (a connections row viewer → author). */
	connected: boolean
	/** A block stands between viewer and author, whoever blocked whom. */
	blocked: boolean
	/** The viewer hid the post, or reported it (hidden_posts). Absent: not hidden. */
	hiddenByViewer?: boolean
}

/** What the place showing the post changes in the rule. */
export interface Place {
	/** Keep posts whose topics are all disabled, and held posts for CMs and a pending post's author (the author's own list, the post page). */
	keepHidden?: boolean
}

/** The rule in memory. */
export function mayView(
	post: RulePost,
	viewer: PostViewer,
	standing: Standing,
	place: Place = {},
): boolean {
	if (post.community_id !== viewer.communityId || post.is_deleted || standing.blocked) return false
	if (standing.hiddenByViewer) return false
	if (
		post.held &&
		!(
			place.keepHidden &&
			(viewer.isCm || (post.held === 'pending' && post.user_id === viewer.userId))
		)
	)
		return false
	if (post.hidden && !place.keepHidden) return false
	return (
		post.user_id === viewer.userId ||
		post.visibility === 'public' ||
		viewer.isCm ||
		(post.visibility === 'connections' && standing.connected)
	)
}

/**
 * Whether mayView's answer for this post depends on Standing.connected: a caller that
 * reads the connection only when it decides asks this first.
 */
export const turnsOnConnection = (post: RulePost, viewer: PostViewer) =>
	post.visibility === 'connections' && post.user_id !== viewer.userId && !viewer.isCm

/** The rule as a condition on the post of alias `post`. */
export const mayViewSql = (
	db: Db,
	post: string,
	viewer: PostViewer,
	place: Place = {},
): Fragment => {
	const p = db(post)
	return db`
	(${p}.community_id = ${viewer.communityId} and not ${p}.is_deleted
		and not ${blockedBetween(db, viewer.userId, db`${p}.user_id`, viewer.communityId)}
		and not exists (select 1 from hidden_posts hp where hp.community_id = ${viewer.communityId}
			and hp.user_id = ${viewer.userId} and hp.post_id = ${p}.id)
		and (${p}.held is null or (${place.keepHidden ?? false} and (${viewer.isCm}
			or (${p}.held = 'pending' and ${p}.user_id = ${viewer.userId}))))
		and (${place.keepHidden ?? false} or not ${hiddenByTopics(db, post, viewer.communityId)})
		and (${p}.user_id = ${viewer.userId} or ${p}.visibility = 'public' or ${viewer.isCm}
			or (${p}.visibility = 'connections' and exists (select 1 from connections cn
				where cn.community_id = ${viewer.communityId} and cn.user_id = ${viewer.userId} and cn.connection_id = ${p}.user_id))))`
}

/**
 * The part of the rule that needs nothing but the post and who is looking: live, in the
 * viewer's community, not held back by moderation, and public or the viewer's own. A
 * post open to the viewer is visible to them whatever else holds (blocks, hidden topics
 * and the viewer's own hides aside, which engaging with a post does not consult).
 */
export const openTo = (post: RulePost, viewer: Pick<PostViewer, 'userId' | 'communityId'>) =>
	post.community_id === viewer.communityId &&
	!post.is_deleted &&
	!post.held &&
	(post.visibility === 'public' || post.user_id === viewer.userId)

/** openTo in SQL, the viewer given as values or columns (a batch's `i.user_id`). */
export const openToSql = (
	db: Db,
	post: string,
	viewer: { userId: number | Fragment; communityId: number | Fragment },
): Fragment => {
	const p = db(post)
	return db`(${p}.community_id = ${viewer.communityId} and not ${p}.is_deleted and ${p}.held is null
		and (${p}.visibility = 'public' or ${p}.user_id = ${viewer.userId}))`
}

/** Visibilities that followers' feeds carry (fan-out, connection and personalised feeds). */
const FOLLOWER_VISIBILITIES: readonly Visibility[] = ['public', 'connections']

/** The post reaches its author's followers' feeds: live, and public or connections. */
export const reachesFollowers = (post: { visibility: string; is_deleted?: boolean }) =>
	!post.is_deleted && (FOLLOWER_VISIBILITIES as readonly string[]).includes(post.visibility)

/** reachesFollowers in SQL, on the post of alias `post` (`posts` when the table has none). */
export const reachesFollowersSql = (db: Db, post: string): Fragment =>
	db`(not ${db(post)}.is_deleted and ${db(post)}.visibility in ('public', 'connections'))`

/** The post is listed in the community's shared sets (universal, topic and widget feeds): live and public. */
export const listedForAll = (post: { visibility: string; is_deleted: boolean }) =>
	!post.is_deleted && post.visibility === 'public'

/**
 * The visibilities of one author's live posts that the viewer may see: what the rule
 * answers for each, so that a list of that author's posts can be filtered by visibility.
 */
export const visibilitiesOf = (
	authorId: number,
	viewer: PostViewer,
	standing: Standing,
): Visibility[] =>
	VISIBILITIES.filter((visibility) =>
		mayView(
			{ community_id: viewer.communityId, user_id: authorId, visibility, is_deleted: false },
			viewer,
			standing,
		),
	)
