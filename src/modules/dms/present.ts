// DM rooms as chat clients parse them: the chatroom object of DESIGN section 8 plus the
// DM fields chat-js declares (`chatroom_with_user`, `chat_request_state`,
// `chat_requested_by`, `member_can_message`, ...), and the DM feed in the shape of
// `/chatroom/sync` (chat-js SyncChatroomResponse).
import { sql } from '../../lib/db'
import type { ChatViewer } from '../chatrooms/access'
import { ACCEPTED, endedBecause, otherMemberOf } from '../chatrooms/dm-rule'
import type { ChatroomRow } from '../chatrooms/repo'
import { presentRooms } from '../chatrooms/service'
import { hydrateShared } from '../conversations/hydrate'
import { findConversations } from '../conversations/repo'
import { type Member, presentMember } from '../users/present'
import { findUsersByIds } from '../users/repo'
import type { DmRow } from './repo'

export interface DmRoom {
	room: ChatroomRow
	dm: DmRow
}

/** Chatroom objects with the DM fields, for the viewer. */
export async function presentDmRooms(viewer: ChatViewer, dms: DmRoom[]) {
	const others = dms.map((d) => otherMemberOf(d.dm, viewer.userId))
	const requesters = dms.flatMap((d) => (d.dm.requested_by ? [d.dm.requested_by] : []))
	const [rooms, users, ended] = await Promise.all([
		presentRooms(
			viewer,
			dms.map((d) => d.room),
		),
		findUsersByIds(sql, viewer.communityId, [...new Set([...others, ...requesters])]),
		Promise.all(dms.map((d) => endedBecause(sql, d.dm, viewer.userId))),
	])
	const members = new Map<number, Member>(users.map((u) => [u.id, presentMember(u)]))
	return rooms.map((room, i) => {
		const { dm } = dms[i] as DmRoom
		const other = members.get(others[i] as number) ?? null
		const open = ended[i] === null && (!dm.request_needed || dm.chat_request_state === ACCEPTED)
		return {
			...room,
			chatroom_with_user: other,
			chatroom_with_user_id: others[i],
			chatroom_with_user_name: other?.name ?? '',
			chat_request_state: dm.chat_request_state,
			chat_requested_by: dm.requested_by ? (members.get(dm.requested_by) ?? null) : null,
			chat_requested_by_id: dm.requested_by,
			chat_request_created_at: dm.request_created_at,
			member_can_message: open,
			unseen_count: room.unread_messages,
		}
	})
}

export type PresentedDmRoom = Awaited<ReturnType<typeof presentDmRooms>>[number]

/** The sync shape: rooms, their last conversations and the members they name, by id. */
export async function dmFeedPage(communityId: number, chatrooms: PresentedDmRoom[]) {
	const lastIds = chatrooms.flatMap((c) => (c.last_conversation_id ? [c.last_conversation_id] : []))
	const shared = await hydrateShared(sql, await findConversations(sql, communityId, lastIds))
	const conversation_meta: Record<string, unknown> = {}
	for (const c of shared.conversations) conversation_meta[c.id] = c
	const user_meta: Record<string, Member> = { ...shared.users }
	for (const room of chatrooms) {
		if (room.chatroom_with_user) user_meta[room.chatroom_with_user.id] = room.chatroom_with_user
		if (room.member) user_meta[room.member.id] = room.member
	}
	return {
		chatrooms_data: chatrooms,
		conversation_meta,
		user_meta,
		community_meta: {},
		card_attachments_meta: {},
		conv_attachments_meta: {},
		widgets: {},
	}
}
