// DM requests and blocking from a DM (chat-js sendDMRequest, blockMember).
// `chat_request_state` 0 sends a request (its text is the DM's first message), 1 accepts
// and 2 rejects it; only the member who received a pending request answers it, and a
// rejected requester may ask again 24 h after the rejection. Where the community needs
// no request, state 0 just sends the text. Blocking is THE block of DESIGN section 7
// (modules/connections/blocks), so it ends the DM and everything else between the two.
import { sql } from '../../lib/db'
import { AppError, badRequest, forbidden, notFound } from '../../lib/errors'
import type { Session } from '../auth/plugin'
import { chatViewer } from '../chatrooms/access'
import { ACCEPTED, endedBecause, otherMemberOf, PENDING, REJECTED } from '../chatrooms/dm-rule'
import { findChatroom, numericId } from '../chatrooms/repo'
import { setBlock } from '../connections/blocks/service'
import { postConversation } from '../conversations/write'
import { findUserById } from '../users/repo'
import { announceAnswer, announceRequest } from './live'
import { presentDmRooms } from './present'
import { type DmRow, findDmByRoom, lockDmByRoom, setRequestState } from './repo'

const COOL_DOWN_MS = 24 * 60 * 60 * 1000

/** The DM room the caller is a member of (404 otherwise, like any room they cannot see). */
async function ownDm(session: Session, chatroomId: string | number): Promise<DmRow> {
	const id = numericId(chatroomId)
	const dm = id ? await findDmByRoom(sql, session.communityId, id) : null
	if (!dm || (dm.low_user_id !== session.userId && dm.high_user_id !== session.userId))
		throw notFound('Chatroom')
	return dm
}

export interface DmRequestInput {
	chatroom_id: string | number
	chat_request_state: number
	text?: string
}

/** POST /chatroom/dm/request → `{conversation}` (the request's message; null when none). */
export async function answerDmRequest(session: Session, input: DmRequestInput) {
	const dm = await ownDm(session, input.chatroom_id)
	const chatroomId = dm.chatroom_id as string
	const ended = await endedBecause(sql, dm, session.userId)
	if (ended) throw forbidden(ended)
	if (input.chat_request_state === PENDING) return sendRequest(session, dm, input.text)
	const requester = await sql.begin(async (tx) => {
		const locked = (await lockDmByRoom(tx, session.communityId, chatroomId)) as DmRow
		if (locked.chat_request_state !== PENDING) throw badRequest('There is no DM request to answer')
		if (locked.requested_by === session.userId)
			throw forbidden('Only the member who received the DM request may answer it')
		await setRequestState(tx, session.communityId, chatroomId, {
			state: input.chat_request_state,
			at: Date.now(),
		})
		return locked.requested_by ?? otherMemberOf(locked, session.userId)
	})
	await announceAnswer(session.communityId, requester, {
		chatroomId,
		status: input.chat_request_state,
		answeredBy: session.userId,
	})
	return { conversation: null, chat_request_state: input.chat_request_state }
}

async function sendRequest(session: Session, dm: DmRow, text: string | undefined) {
	const chatroomId = dm.chatroom_id as string
	const message = text?.trim() ? text : null
	if (!dm.request_needed) {
		if (!message) return { conversation: null, chat_request_state: dm.chat_request_state }
		const posted = await postConversation(session, { chatroom_id: chatroomId, text: message })
		return { conversation: posted.conversation, chat_request_state: dm.chat_request_state }
	}
	await sql.begin(async (tx) => {
		const locked = (await lockDmByRoom(tx, session.communityId, chatroomId)) as DmRow
		if (locked.chat_request_state === PENDING || locked.chat_request_state === ACCEPTED)
			throw badRequest(
				locked.chat_request_state === PENDING
					? 'A DM request is already pending'
					: 'The DM request was already accepted',
			)
		if (
			locked.chat_request_state === REJECTED &&
			locked.requested_by === session.userId &&
			Date.now() - (locked.rejected_at ?? 0) < COOL_DOWN_MS
		) {
			const retry = Math.ceil(((locked.rejected_at ?? 0) + COOL_DOWN_MS - Date.now()) / 1000)
			throw new AppError(
				429,
				'Your DM request was rejected: you can send a new one 24 hours after the rejection',
				{ 'retry-after': String(Math.max(1, retry)) },
			)
		}
		await setRequestState(tx, session.communityId, chatroomId, {
			state: PENDING,
			requestedBy: session.userId,
			at: Date.now(),
		})
	})
	const posted = message
		? await postConversation(
				session,
				{ chatroom_id: chatroomId, text: message },
				{ dmRequest: true },
			)
		: null
	await announceRequest(session.communityId, otherMemberOf(dm, session.userId), {
		chatroomId,
		requester: { id: session.userId, uuid: session.uuid },
		conversationId: posted?.id ?? null,
	})
	return { conversation: posted?.conversation ?? null, chat_request_state: PENDING }
}

export const BLOCK = 0
export const UNBLOCK = 1

/** POST /chatroom/dm/block {chatroom_id, status}: 0 blocks the other member, 1 unblocks. */
export async function blockFromDm(session: Session, chatroomId: string | number, status: number) {
	const dm = await ownDm(session, chatroomId)
	const other = await findUserById(sql, session.communityId, otherMemberOf(dm, session.userId))
	if (!other) throw notFound('Member')
	const { is_blocked } = await setBlock(session, session.uuid, other.uuid, status === BLOCK)
	const room = await findChatroom(sql, session.communityId, dm.chatroom_id as string)
	const [chatroom = null] = room ? await presentDmRooms(chatViewer(session), [{ room, dm }]) : []
	return { conversation: null, is_blocked, chatroom }
}
