// The feed-response form of a post (SPEC "Post in feed responses" + DESIGN 3/5) with
// the viewer's flags and menu, and of a user (the users map, keyed by uuid).
import type { CachedPost, CachedUser } from './repo'

/** Who reads a feed; `isCm` comes from the role stored now (modules/auth/session.ts viewerOf). */
export interface Viewer {
	userId: number
	communityId: number
	isCm: boolean
}

export interface MenuItem {
	id: number
	title: string
}

const Menu = {
	delete: { id: 1, title: 'Delete' },
	pin: { id: 2, title: 'Pin' },
	unpin: { id: 3, title: 'Unpin' },
	report: { id: 4, title: 'Report' },
	edit: { id: 5, title: 'Edit' },
} as const

/** Author: delete, pin/unpin, edit. CM: delete, pin/unpin, report. Anyone else: report. */
export function postMenu(
	post: Pick<CachedPost, 'user_id' | 'is_pinned'>,
	viewer: Viewer,
): MenuItem[] {
	const isAuthor = post.user_id === viewer.userId
	const items: MenuItem[] = []
	if (isAuthor || viewer.isCm) items.push(Menu.delete, post.is_pinned ? Menu.unpin : Menu.pin)
	if (!isAuthor) items.push(Menu.report)
	if (isAuthor) items.push(Menu.edit)
	return items
}

// A menu is one of eight (author?, CM?, pinned?): serialized once, not for every post of every page.
const menuJsons = new Map<number, string>()

/** postMenu as JSON. */
export function postMenuJson(
	post: Pick<CachedPost, 'user_id' | 'is_pinned'>,
	viewer: Viewer,
): string {
	const kind =
		(post.user_id === viewer.userId ? 4 : 0) + (viewer.isCm ? 2 : 0) + (post.is_pinned ? 1 : 0)
	let json = menuJsons.get(kind)
	if (json === undefined) {
		json = JSON.stringify(postMenu(post, viewer))
		menuJsons.set(kind, json)
	}
	return json
}

export function presentFeedUser(user: CachedUser) {
	return {
		id: user.id,
		name: user.name,
		image_url: user.image_url,
		user_unique_id: user.user_unique_id,
		uuid: user.uuid,
		custom_title: user.custom_title,
		sdk_client_info: {
			community: user.community_id,
			user: user.id,
			user_unique_id: user.user_unique_id,
			uuid: user.uuid,
		},
		is_guest: user.is_guest,
		is_deleted: user.is_deleted,
	}
}

export type FeedUser = ReturnType<typeof presentFeedUser>

/** The inverse of presentFeedUser. */
export function userFromFeed(user: FeedUser): CachedUser {
	return {
		id: user.id,
		uuid: user.uuid,
		community_id: user.sdk_client_info.community,
		user_unique_id: user.user_unique_id,
		name: user.name,
		image_url: user.image_url,
		custom_title: user.custom_title,
		is_guest: user.is_guest,
		is_deleted: user.is_deleted,
	}
}

export interface ViewerState {
	isLiked: boolean
	isSaved: boolean
}

/**
 * The part of a post that is the same for every viewer, except the seen counters
 * (cached pre-serialized; the counters follow it as a separate tail that the seen
 * script rewrites in place — see post-encoding.ts).
 */
export function presentStablePost(post: CachedPost) {
	const uuid = post.author_uuid
	return {
		_id: post.id,
		id: post.id,
		heading: post.heading,
		text: post.text,
		attachments: post.attachments,
		community_id: post.community_id,
		user_id: uuid,
		uuid,
		visibility: post.visibility,
		topics: post.topic_ids,
		widget_ids: post.widget_ids,
		is_pinned: post.is_pinned,
		is_edited: post.is_edited,
		is_deleted: post.is_deleted,
		likes_count: post.likes_count,
		comments_count: post.comments_count,
		post_shared_count: post.post_shared_count,
		created_at: post.created_at,
		updated_at: post.updated_at,
	}
}

/** The seen counters: always the last fields of a post's feed form. */
export const presentSeenCounts = (post: Pick<CachedPost, 'impressions_count' | 'reach_count'>) => ({
	impressions_count: post.impressions_count,
	reach_count: post.reach_count,
})

/** The part of a post that is the same for every viewer. */
export function presentSharedPost(post: CachedPost) {
	return { ...presentStablePost(post), ...presentSeenCounts(post) }
}

export type SharedPost = ReturnType<typeof presentSharedPost>

/** The inverse of presentSharedPost, given what the feed form leaves out. */
export function postFromShared(
	rest: Pick<CachedPost, 'user_id' | 'hidden' | 'held' | 'tagged_user_ids'>,
	shared: SharedPost,
): CachedPost {
	return {
		id: shared._id,
		community_id: shared.community_id,
		user_id: rest.user_id,
		author_uuid: shared.uuid,
		heading: shared.heading,
		text: shared.text,
		attachments: shared.attachments,
		visibility: shared.visibility,
		is_pinned: shared.is_pinned,
		is_edited: shared.is_edited,
		is_deleted: shared.is_deleted,
		likes_count: shared.likes_count,
		comments_count: shared.comments_count,
		post_shared_count: shared.post_shared_count,
		impressions_count: shared.impressions_count,
		reach_count: shared.reach_count,
		created_at: shared.created_at,
		updated_at: shared.updated_at,
		topic_ids: shared.topics,
		widget_ids: shared.widget_ids,
		tagged_user_ids: rest.tagged_user_ids,
		hidden: rest.hidden,
		held: rest.held ?? null,
	}
}

export function presentFeedPost(post: CachedPost, viewer: Viewer, state: ViewerState) {
	return {
		...presentSharedPost(post),
		is_liked: state.isLiked,
		is_saved: state.isSaved,
		menu_items: postMenu(post, viewer),
	}
}

export type FeedPost = ReturnType<typeof presentFeedPost>
