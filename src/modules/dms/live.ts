// What a DM request tells the members' live `me` scopes after its commit: the receiver
// hears of a request (`dm.request`), the requester of its answer (`dm.request_answered`,
// `status` the chat_request_state the answer set: 1 accepted, 2 rejected). Members are
// named as in the other live events: `member_id` the user id, with its `uuid`.
import { liveScopes, publishLive } from '../../live'

export function announceRequest(
	communityId: number,
	receiverId: number,
	request: {
		chatroomId: string
		requester: { id: number; uuid: string }
		conversationId: string | null
	},
) {
	return publishLive(liveScopes.me(communityId, receiverId), {
		type: 'dm.request',
		data: {
			chatroom_id: request.chatroomId,
			member_id: request.requester.id,
			uuid: request.requester.uuid,
			conversation_id: request.conversationId,
		},
	})
}

export function announceAnswer(
	communityId: number,
	requesterId: number,
	answer: { chatroomId: string; status: number; answeredBy: number },
) {
	return publishLive(liveScopes.me(communityId, requesterId), {
		type: 'dm.request_answered',
		data: {
			chatroom_id: answer.chatroomId,
			status: answer.status,
			member_id: answer.answeredBy,
		},
	})
}
