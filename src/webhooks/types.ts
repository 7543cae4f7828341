// Event names a webhook can subscribe to: the spec's event table plus
// `conversation.create` (registered in the spec's example), `chatroom.message.sent`
// and `chatroom.poll.created` (the product's own names, DESIGN section 10).
export const webhookTypes = [
	'chatroom.joined',
	'chatroom.left',
	'chatroom.user.tagged',
	'chatroom.conversation.replied',
	'chatroom.conversation.reacted',
	'chatroom.conversation.reaction.removed',
	'conversation.create',
	'chatroom.message.sent',
	'chatroom.poll.created',
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
