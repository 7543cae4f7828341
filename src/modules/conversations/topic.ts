// A room's topic (PUT /conversation/topic, chat-js setChatroomTopic): a conversation of
// the room pinned as its topic by a community manager; `conversation_id` null clears
// it. The chatroom object carries it as `topic_id`. DMs have no topic.
import { sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import type { Session } from '../auth/plugin'
import { chatViewer, DM, isCmViewer, seeRoom } from '../chatrooms/access'
import { numericId, setRoomTopic } from '../chatrooms/repo'
import { hydrate } from './hydrate'
import { findConversation } from './repo'

export async function setTopic(
	session: Session,
	input: { chatroom_id: string | number; conversation_id?: string | number | null },
) {
	const viewer = chatViewer(session)
	const room = await seeRoom(sql, viewer, input.chatroom_id)
	if (!isCmViewer(viewer)) throw forbidden('Only community managers set a chatroom topic')
	if (room.type === DM) throw badRequest('A direct message has no topic')
	if (input.conversation_id === null || input.conversation_id === undefined) {
		await setRoomTopic(sql, room.community_id, room.id, null, Date.now())
		return { chatroom_id: room.id, topic: null }
	}
	const id = numericId(input.conversation_id)
	const row = id ? await findConversation(sql, viewer.communityId, id) : null
	if (!row || row.chatroom_id !== room.id) throw notFound('Conversation')
	if (row.deleted_by !== null) throw badRequest('A deleted conversation cannot be the topic')
	await setRoomTopic(sql, room.community_id, room.id, row.id, Date.now())
	const { conversations } = await hydrate(sql, viewer, [row])
	return { chatroom_id: room.id, topic: conversations[0] }
}
