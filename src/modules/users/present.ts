// The two public shapes of a user: the feed-response form and the webhook form (SPEC
// "User object"). Maps in responses are keyed by the user's uuid (DESIGN section 3).
import type { UserRow } from './repo'

export type UserLike = Pick<
	UserRow,
	'id' | 'uuid' | 'community_id' | 'user_unique_id' | 'name' | 'image_url' | 'custom_title' | 'is_guest' | 'is_deleted'
>

export function presentUser(user: UserLike) {
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

export function usersMap(users: UserLike[]): Record<string, ReturnType<typeof presentUser>> {
	const map: Record<string, ReturnType<typeof presentUser>> = {}
	for (const user of users) map[user.uuid] = presentUser(user)
	return map
}
