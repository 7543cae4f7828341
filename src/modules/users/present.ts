// The two public shapes of a user: the feed-response form and the webhook form (SPEC
// "User object"). Maps in responses are keyed by the user's uuid (DESIGN section 3).
import { type CachedUser, type FeedUser, presentFeedUser } from '../../timelines'

/** What both shapes need: the feed engine's cached user (a UserRow is one). */
export type UserLike = CachedUser

/** The feed-response form: one definition, shared with the feed engine's users maps. */
export const presentUser: (user: UserLike) => FeedUser = presentFeedUser

export function presentUserForWebhook(user: UserLike) {
	return {
		id: user.id,
		custom_title: user.custom_title,
		image_url: user.image_url,
		is_guest: user.is_guest,
		is_deleted: user.is_deleted,
		name: user.name,
		sdk_client_info: { community: user.community_id, uuid: user.user_unique_id },
		uuid: user.uuid,
	}
}

export function usersMap(users: UserLike[]): Record<string, FeedUser> {
	const map: Record<string, FeedUser> = {}
	for (const user of users) map[user.uuid] = presentUser(user)
	return map
}

/** The chat member object (DESIGN §8): `id` a string, `state` 1 for a CM or owner, 4 for a member. */
export function presentMember(user: UserLike & { role: string }) {
	return {
		...presentUser(user),
		id: String(user.id),
		state: user.role === 'member' ? 4 : 1,
	}
}

export type Member = ReturnType<typeof presentMember>

/**
 * A member as the SDKs' member routes show it (feed-js `User`, chat-js `Member`): the
 * feed form with `state` (1 a CM or the owner, 4 a member) and `is_owner`.
 */
export function presentSdkMember(user: UserLike & { role: string }) {
	return {
		...presentUser(user),
		state: user.role === 'member' ? 4 : 1,
		is_owner: user.role === 'owner',
	}
}
