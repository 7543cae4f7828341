// The webhook form of a post (SPEC "Post (webhook form)") and the data block shared by
// every post event: post.created, post.tagged, post.liked, post.pinned.
// `postEventData(tx, communityId, postId)` reads inside the caller's transaction, so
// the event carries the state being committed; add `post_liked_by`, `pinned_by` or
// `tagged_users` to it.
import type { Db } from '../../lib/db'
import { type CachedPost, loadPosts } from '../../timelines/repo'
import { presentTopicForWebhook } from '../topics/present'
import { findTopicsByIds } from '../topics/repo'
import { presentUserForWebhook } from '../users/present'
import { findUserById } from '../users/repo'
import { presentWidget } from '../widgets/present'
import { findWidgetsByIds } from '../widgets/repo'

export function presentPostForWebhook(post: CachedPost, creatorUuid: string) {
	return {
		_id: post.id,
		attachments: post.attachments,
		comment_ids: null,
		comments_count: post.comments_count,
		community_id: post.community_id,
		created_at: post.created_at,
		heading: post.heading,
		is_edited: post.is_edited,
		is_liked: false,
		is_pinned: post.is_pinned,
		is_repost: false,
		is_reposted_by_user: false,
		is_saved: false,
		likes_count: post.likes_count,
		menu_items: [],
		repost_count: post.post_shared_count,
		text: post.text,
		topics: post.topic_ids,
		updated_at: post.updated_at,
		uuid: creatorUuid,
	}
}

export async function postEventData(db: Db, communityId: number, postId: string) {
	const [post] = await loadPosts(db, communityId, [postId])
	if (!post) throw new Error(`postEventData: post ${postId} not found`)
	const [topics, widgets, creator] = await Promise.all([
		findTopicsByIds(db, communityId, post.topic_ids),
		findWidgetsByIds(db, communityId, post.widget_ids),
		findUserById(db, post.user_id),
	])
	return {
		post: presentPostForWebhook(post, creator?.uuid ?? ''),
		topics: topics.map(presentTopicForWebhook),
		widgets: widgets.map(presentWidget),
		post_creator: creator ? presentUserForWebhook(creator) : null,
	}
}
