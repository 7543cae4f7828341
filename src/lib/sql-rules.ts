// The SQL of rules that several repositories share, each in one place: who is
// blocked between two users, which posts their topics hide. Fragments only (porsager's
// sql`` nests them). Who may see a post, built on these, is lib/visibility.ts.
import type postgres from 'postgres'
import type { Db } from './db'

type Fragment = postgres.Fragment
/** A user id as a value, or a column fragment such as sql`l.user_id`. */
type UserRef = number | Fragment
/** A community id as a value, or a column fragment such as sql`p.community_id`. */
type CommunityRef = number | Fragment

/**
 * A block stands between a and b, whoever blocked whom, within `community` (a value
 * where Citus needs one to keep the subquery on its shard, DESIGN §21).
 */
export const blockedBetween = (
	db: Db,
	a: UserRef,
	b: UserRef,
	community: CommunityRef,
): Fragment => db`
	exists (select 1 from blocks bl
		where bl.community_id = ${community} and
			((bl.blocker_id = ${a} and bl.blocked_id = ${b})
				or (bl.blocker_id = ${b} and bl.blocked_id = ${a})))`

/**
 * The post (table alias `post`, of the community) has topics and every one of them is
 * disabled. The community is the post's, given as a value: Citus routes a subquery to
 * one shard only by a value, not by the outer row's column.
 */
export const hiddenByTopics = (db: Db, post: string, community: CommunityRef): Fragment => db`
	(exists (select 1 from post_topics pt
			where pt.community_id = ${community} and pt.post_id = ${db(post)}.id)
		and not exists (select 1 from post_topics pt
			join topics t on t.community_id = pt.community_id and t.id = pt.topic_id
			where pt.community_id = ${community} and pt.post_id = ${db(post)}.id and t.is_enabled))`

/**
 * hiddenByTopics as an aggregate over one post's topic links joined to their topics
 * (alias `topic`), for reads of many posts at once; null for a post without links.
 */
export const hiddenByTopicLinks = (db: Db, topic: string): Fragment =>
	db`bool_and(not ${db(topic)}.is_enabled)`

/**
 * The viewer reported the comment or reply (table alias `comment`, of the community),
 * whatever became of the report: its reporter never sees it again (modules/reports).
 */
export const reportedCommentBy = (
	db: Db,
	community: CommunityRef,
	viewer: UserRef,
	comment: string,
): Fragment => db`
	exists (select 1 from reports rp where rp.community_id = ${community}
		and rp.entity_type in ('comment', 'reply') and rp.entity_id = ${db(comment)}.id
		and rp.reporter_user_id = ${viewer})`

/**
 * The viewer reported the conversation (table alias `conversation`) or its author,
 * whatever became of the report: its reporter never sees it again in chat
 * (modules/reports; the chat pages read the same from the viewer's exclusions).
 */
export const reportedInChatBy = (db: Db, viewer: UserRef, conversation: string): Fragment => db`
	exists (select 1 from reports rp where rp.community_id = ${db(conversation)}.community_id
		and rp.reporter_user_id = ${viewer}
		and ((rp.entity_type = 'conversation' and rp.entity_id = ${db(conversation)}.id::text)
			or (rp.entity_type = 'member' and rp.accused_user_id = ${db(conversation)}.user_id)))`
