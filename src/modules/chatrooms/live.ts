// A seat taken or left, told to the room's live scope (`chatroom:<id>`) after commit.
import { liveScopes, publishLive } from '../../live'

export function announceSeat(
	communityId: number,
	chatroomId: string,
	memberId: number,
	joined: boolean,
	method: string,
): Promise<string | null> {
	return publishLive(liveScopes.chatroom(communityId, chatroomId), {
		type: joined ? 'member.joined' : 'member.left',
		data: { chatroom_id: chatroomId, member_id: memberId, method },
	})
}
