// Seating and unseating members: the one path every join and leave takes (follow,
// CM adding or removing, cohorts attaching or detaching, the collabcard link), so
// each writes its system conversation (state 2 joined, 3 left), keeps
// participants_count exact and records chatroom.joined / chatroom.left in the same
// transaction. Permission checks belong to the callers.

import type { Db } from '../../lib/db'
import { recordEvent } from '../../webhooks/outbox'
import { getNotiState } from '../settings/service'
import { presentUserForWebhook } from '../users/present'
import { findUserById } from '../users/repo'
import { insertConversation, JOINED, LEFT } from './log-repo'
import type { JoinMethod, LeftMethod } from './model'
import { presentChatroomForWebhook } from './present'
import {
	addParticipantsCount,
	communityName,
	deleteParticipant,
	insertParticipant,
	lockChatroom,
} from './repo'
import { raiseRoomVersion } from './room-state'

export interface Seating {
	communityId: number
	chatroomId: string
	userId: number
}

/** Seats the user (all history counts as read); false when already seated. */
export async function joinChatroom(
	tx: Db,
	input: Seating & { method: JoinMethod },
): Promise<boolean> {
	const room = await lockChatroom(tx, input.communityId, input.chatroomId)
	if (!room) return false
	const now = Date.now()
	const seated = await insertParticipant(tx, {
		chatroom_id: room.id,
		user_id: input.userId,
		community_id: input.communityId,
		join_method: input.method,
		noti_state: await getNotiState(input.communityId, tx),
		read_conversation_id: room.last_conversation_id ?? '0',
		read_count: room.messages_count,
		now,
	})
	if (!seated) return false
	await addParticipantsCount(tx, input.communityId, room.id, 1)
	await systemLine(tx, input, JOINED)
	await recordSeatEvent(tx, input, 'chatroom.joined', { join_method: input.method })
	return true
}

/** Unseats the user; false when not seated. */
export async function leaveChatroom(
	tx: Db,
	input: Seating & { method: LeftMethod },
): Promise<boolean> {
	const room = await lockChatroom(tx, input.communityId, input.chatroomId)
	if (!room || !(await deleteParticipant(tx, input.communityId, room.id, input.userId)))
		return false
	await addParticipantsCount(tx, input.communityId, room.id, -1)
	await systemLine(tx, input, LEFT)
	await recordSeatEvent(tx, input, 'chatroom.left', { left_method: input.method })
	return true
}

async function systemLine(tx: Db, input: Seating, state: number) {
	const { roomVersion } = await insertConversation(tx, {
		chatroom_id: input.chatroomId,
		community_id: input.communityId,
		user_id: input.userId,
		state,
		text: '',
		attachments: [],
		replied_conversation_id: null,
		temporary_id: null,
	})
	await raiseRoomVersion(input.chatroomId, roomVersion)
}

async function recordSeatEvent(
	tx: Db,
	input: Seating,
	event: 'chatroom.joined' | 'chatroom.left',
	extra: Record<string, string>,
) {
	const [room, user, name] = await Promise.all([
		lockChatroom(tx, input.communityId, input.chatroomId),
		findUserById(tx, input.communityId, input.userId),
		communityName(tx, input.communityId),
	])
	if (!room || !user) return
	await recordEvent(tx, {
		communityId: input.communityId,
		event,
		source: 'chat',
		data: {
			chatroom: presentChatroomForWebhook(room, name),
			user: presentUserForWebhook(user),
			...extra,
		},
	})
}
