// New conversations of concurrent writers share one transaction (lib/group-commit.ts):
// the writers of a busy room no longer each wait for a commit of their own while
// holding the room's turn — a batch takes the turn once, sends every insert in one
// round trip, and commits once. A message alone is a batch of one. When a batch fails
// (a company widget that does not exist, say), its messages run alone, each getting
// its own answer. Everything a message needs that is not written with it was read
// before (write.ts postConversation).
//
// The turn holds no wait on this process: BEGIN goes out with the inserts and, unless a
// poll or a chat event must follow them, COMMIT right behind them (lib/db.ts
// pipelinedTransaction), so Postgres runs insert and commit without waiting for an
// answer to reach the app. The rooms' Redis versions are raised after the commit; each
// message counted itself in as being written before (writeCounted: room-state.ts), so
// until that raise readers of its room ask Postgres.

import type postgres from 'postgres'
import { afterCommit, commitNow, type Db, pipelinedTransaction } from '../../lib/db'
import { batchCommit } from '../../lib/group-commit'
import type { ChatroomRow } from '../chatrooms/repo'
import { writingIn, writtenIn } from '../chatrooms/room-state'
import { type preparePoll, savePoll } from '../polls/service'
import type { UserRow } from '../users/repo'
import { resolveAttachments } from './attachments'
import { recordConversationEvents, recordsEvents } from './events'
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
	/** counted in as being written (room-state.ts writingIn): counted out after the commit */
	counted: boolean
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
					m.tagged.map((u) => u.id),
				)}, ${noticeCtes(tx, m.notice)}`
			: noticeCtes(tx, m.notice),
	)

/** After the commit: each room's version raised to its newest, its messages counted out. */
async function roomsWritten(messages: NewMessage[], inserted: { roomVersion: string }[]) {
	const rooms = new Map<string, { version: bigint; counted: number }>()
	messages.forEach((m, i) => {
		const room = rooms.get(m.room.id) ?? { version: -1n, counted: 0 }
		const v = BigInt(inserted[i]?.roomVersion ?? -1)
		rooms.set(m.room.id, {
			version: v > room.version ? v : room.version,
			counted: room.counted + (m.counted ? 1 : 0),
		})
	})
	await Promise.all(
		[...rooms].map(([room, { version, counted }]) => writtenIn(room, counted, version.toString())),
	)
}

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
	const inserting = Promise.all(
		order.map((i) => insertOf(tx, messages[i] as NewMessage, stored[i] as unknown[])),
	)
	// Polls and chat events follow the inserts (they need the ids); without any, COMMIT
	// goes out right behind the inserts.
	const follow = messages.filter((m) => m.draft || recordsEvents(m, true))
	if (follow.length === 0) commitNow(tx)
	const inserted = await inserting
	const rows: ConversationRow[] = []
	const ofMessage: { roomVersion: string }[] = []
	order.forEach((i, k) => {
		const one = inserted[k] as { conversation: ConversationRow; roomVersion: string }
		rows[i] = one.conversation
		ofMessage[i] = one
	})
	afterCommit(tx, () => roomsWritten(messages, ofMessage))
	await Promise.all(
		messages.map(async (m, i) => {
			if (!follow.includes(m)) return
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
const batches = batchCommit<NewMessage, ConversationRow, never, postgres.ReservedSql>({
	// every message is its own: any of them may share a batch
	key: () => String(sequence++),
	together: async (tx, messages) =>
		(await writeAll(tx, messages)).map((value) => ({ ok: true as const, value })),
	open: pipelinedTransaction,
	inFlight: 4,
})

/**
 * Writes a new conversation of `chatroomId` with its tags, notice, poll and events;
 * resolves after the commit. The message is counted in as being written while
 * `prepare` reads what it needs (the same round trip), before its transaction, and
 * counted out with its room's version raise after the commit — or at once when it fails.
 */
export async function writeConversation(
	chatroomId: string,
	prepare: () => Promise<Omit<NewMessage, 'counted'>>,
): Promise<ConversationRow> {
	const counting = writingIn(chatroomId)
	try {
		const [message, counted] = await Promise.all([prepare(), counting])
		return await batches.run({ ...message, counted })
	} catch (error) {
		// a write that failed raised nothing: no hook of it ran
		if (await counting) await writtenIn(chatroomId, 1)
		throw error
	}
}
