// Event names a webhook can subscribe to: the spec's event table plus
// `conversation.create` (registered in the spec's example).
export const webhookTypes = [
	'chatroom.joined',
	'chatroom.left',
	'chatroom.user.tagged',
	'chatroom.conversation.replied',
	'conversation.create',
	'profile.created',
	'notifications.chat',
	'post.created',
	'post.pinned',
	'post.liked',
	'post.tagged',
	'comment.added',
	'comment.tagged',
	'comment.react',
	'notifications.feed',
] as const

export type WebhookType = (typeof webhookTypes)[number]
