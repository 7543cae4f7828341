// The shapes chat clients parse (DESIGN section 8): the chatroom with the viewer's
// state, and the webhook form of a chatroom (SPEC "Chatroom"). Members are
// users/present.ts presentMember.

import { presentMember } from '../users/present'
import type { UserRow } from '../users/repo'
import type { AttachedCohort } from './cohort-repo'
import type { ChatroomRow, ParticipantRow } from './repo'

/** Conversations of others after the read mark (0 for a viewer without a seat). */
export function unreadOf(room: ChatroomRow, seat: ParticipantRow | null | undefined): number {
	if (!seat) return 0
	return Math.max(0, room.messages_count - seat.read_count - seat.own_unread)
}

export interface ChatroomContext {
	communityName: string
	seat: ParticipantRow | null | undefined
	creator: UserRow | null | undefined
	cohorts: AttachedCohort[]
}

export function presentChatroom(room: ChatroomRow, ctx: ChatroomContext) {
	return {
		id: room.id,
		title: room.title,
		header: room.header,
		type: room.type,
		community_id: room.community_id,
		community_name: ctx.communityName,
		chatroom_image_url: room.chatroom_image_url,
		is_secret: room.is_secret,
		follow_status: !!ctx.seat,
		is_muted: ctx.seat?.is_muted ?? false,
		noti_state: ctx.seat?.noti_state ?? null,
		participants_count: room.participants_count,
		member: ctx.creator ? presentMember(ctx.creator) : null,
		cohorts: ctx.cohorts,
		created_at: room.created_at,
		updated_at: room.updated_at,
		last_conversation_id: room.last_conversation_id,
		unread_messages: unreadOf(room, ctx.seat),
		topic_id: room.topic_conversation_id,
	}
}

export function presentChatroomForWebhook(room: ChatroomRow, communityName: string) {
	return {
		chatroom_image_url: room.chatroom_image_url,
		community_id: room.community_id,
		community_name: communityName,
		title: room.title,
		header: room.header,
		id: room.id,
		is_secret: room.is_secret,
		updated_at: room.updated_at,
		created_at: room.created_at,
		participants_count: room.participants_count,
	}
}
