// New conversations of concurrent writers share one transaction (lib/group-commit.ts):
// the writers of a busy room no longer each wait for a commit of their own while
// holding the room's turn — a batch takes the turn once, sends every insert in one
// round trip, and commits once. A message alone is a batch of one. When a batch fails
// (a company widget that does not exist, say), its messages run alone, each getting
// its own answer. Everything a message needs that is not written with it was read
// before (write.ts postConversation).

import type { Db } from '../../lib/db'
import { batchCommit } from '../../lib/group-commit'
import type { ChatroomRow } from '../chatrooms/repo'
import { raiseRoomVersion } from '../chatrooms/room-state'
import { type preparePoll, savePoll } from '../polls/service'
import type { UserRow } from '../users/repo'
import { resolveAttachments } from './attachments'
import { recordConversationEvents } from './events'
import type { PostConversationInput } from './model'
import { type NewNotice, noticeCtes } from './notices'
import { type ConversationRow, insertConversation, tagsCte } from './repo'

export interface NewMessage {
	communityId: number
	userId: number
	room: ChatroomRow
	state: number
	text: string
	attachments: NonNullable<PostConversationInput['attachments']>
	replied: ConversationRow | null
	temporaryId: string | null
	draft: Awaited<ReturnType<typeof preparePoll>> | null
	author: UserRow
	tagged: UserRow[]
	listening: Set<string>
	notice: NewNotice
}

const insertOf = (tx: Db, m: NewMessage, attachments: unknown[]) =>
	insertConversation(
		tx,
		{
			chatroom_id: m.room.id,
			community_id: m.communityId,
			user_id: m.userId,
			state: m.state,
			text: m.text,
			attachments,
			replied_conversation_id: m.replied?.id ?? null,
			temporary_id: m.temporaryId,
		},
		m.tagged.length > 0
			? tx`${tagsCte(
					tx,
					m.communityId,
					m.tagged.map((u) => u.id),
				)}, ${noticeCtes(tx, m.notice)}`
			: noticeCtes(tx, m.notice),
	)

async function writeAll(tx: Db, messages: NewMessage[]): Promise<ConversationRow[]> {
	const stored = await Promise.all(
		messages.map((m) => resolveAttachments(tx, m.communityId, m.userId, m.attachments)),
	)
	// Sent in one go, rooms in id order: two batches in flight then never wait on each
	// other's rooms in a ring. The first insert of a room takes its turn for the batch.
	const order = messages.map((_, i) => i)
	order.sort((a, b) => {
		const [x, y] = [BigInt(messages[a]?.room.id ?? 0), BigInt(messages[b]?.room.id ?? 0)]
		return x < y ? -1 : x > y ? 1 : a - b
	})
	const inserted = await Promise.all(
		order.map((i) => insertOf(tx, messages[i] as NewMessage, stored[i] as unknown[])),
	)
	const rows: ConversationRow[] = []
	order.forEach((i, k) => {
		rows[i] = (inserted[k] as { conversation: ConversationRow }).conversation
	})
	const versions = new Map<string, bigint>()
	for (const { conversation, roomVersion } of inserted) {
		const v = BigInt(roomVersion)
		if ((versions.get(conversation.chatroom_id) ?? -1n) < v)
			versions.set(conversation.chatroom_id, v)
	}
	await Promise.all([...versions].map(([room, v]) => raiseRoomVersion(room, v.toString())))
	await Promise.all(
		messages.map(async (m, i) => {
			const conversation = rows[i] as ConversationRow
			if (m.draft)
				await savePoll(
					tx,
					{
						conversationId: conversation.id,
						chatroomId: m.room.id,
						communityId: m.communityId,
						creatorId: m.userId,
					},
					m.draft,
				)
			await recordConversationEvents(
				tx,
				{
					room: m.room,
					conversation,
					author: m.author,
					replied: m.replied,
					tagged: m.tagged,
					listening: m.listening,
				},
				true,
			)
		}),
	)
	return rows
}

let sequence = 0
const batches = batchCommit<NewMessage, ConversationRow>({
	// every message is its own: any of them may share a batch
	key: () => String(sequence++),
	together: async (tx, messages) =>
		(await writeAll(tx, messages)).map((value) => ({ ok: true as const, value })),
	inFlight: 4,
})

/** Writes a new conversation with its tags, notice, poll and events; resolves after the commit. */
export const writeConversation = (message: NewMessage) => batches.run(message)
