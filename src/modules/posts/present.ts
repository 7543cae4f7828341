// The webhook form of a post (SPEC "Post (webhook form)") and the data block shared by
// every post event: post.created, post.tagged, post.liked, post.pinned. The block is
// built from a post already loaded in the caller's transaction and its context
// (topics, widgets, creator), so the event carries the state being committed; add
// `post_liked_by`, `pinned_by` or `tagged_users` to it.
import type { Db } from '../../lib/db'
import { type CachedPost, loadPosts } from '../../timelines'
import { presentTopicForWebhook } from '../topics/present'
import { findTopicsByIds, type TopicRow } from '../topics/repo'
import { presentUserForWebhook } from '../users/present'
import { findUserById, type UserRow } from '../users/repo'
import { presentWidget } from '../widgets/present'
import { findWidgetsByIds, type WidgetRow } from '../widgets/repo'

export function presentPostForWebhook(post: CachedPost) {
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
		uuid: post.author_uuid,
	}
}

/** What a post's events and replies show beside it: its topics, widgets and creator. */
export interface PostContext {
	topics: TopicRow[]
	widgets: WidgetRow[]
	creator: UserRow | null
}

export async function loadPostContext(db: Db, post: CachedPost): Promise<PostContext> {
	const [topics, widgets, creator] = await Promise.all([
		findTopicsByIds(db, post.community_id, post.topic_ids),
		findWidgetsByIds(db, post.community_id, post.widget_ids),
		findUserById(db, post.community_id, post.user_id),
	])
	return { topics, widgets, creator }
}

/**
 * loadPostContext without the creators for many posts, from the topics and widgets linked
 * to them (findTopicsOfPosts, findWidgetsOfPosts: a batch of likes sends those before the
 * posts are read).
 */
export function postContexts(posts: CachedPost[], topics: TopicRow[], widgets: WidgetRow[]) {
	const topic = new Map(topics.map((t) => [t.id, t]))
	const widget = new Map(widgets.map((w) => [w.id, w]))
	return new Map<string, Omit<PostContext, 'creator'>>(
		posts.map((p) => [
			p.id,
			{
				topics: p.topic_ids.flatMap((id) => topic.get(id) ?? []),
				widgets: p.widget_ids.flatMap((id) => widget.get(id) ?? []),
			},
		]),
	)
}

export function presentPostEvent(post: CachedPost, context: PostContext) {
	return {
		post: presentPostForWebhook(post),
		topics: context.topics.map(presentTopicForWebhook),
		widgets: context.widgets.map(presentWidget),
		post_creator: context.creator ? presentUserForWebhook(context.creator) : null,
	}
}

/** The post as `db` sees it now (inside a transaction: as it will commit). */
export async function loadPost(db: Db, communityId: number, postId: string): Promise<CachedPost> {
	const [post] = await loadPosts(db, communityId, [postId])
	if (!post) throw new Error(`post ${postId} not found`)
	return post
}

/** The event block of a post that this write did not change (likes, pins, comments). */
export async function postEventData(db: Db, communityId: number, postId: string) {
	const post = await loadPost(db, communityId, postId)
	return presentPostEvent(post, await loadPostContext(db, post))
}
