// Reading a room: pages by keyset (newest, older or newer than an anchor; never
// OFFSET) and the sync read for clients that keep a local copy (changes by
// updated_at, so edits and deletes reach them). Reading the newest page moves the
// reader's read mark, which is what keeps unread_messages exact.
import { sql } from '../../lib/db'
import { badRequest, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/plugin'
import { chatViewer, isCmViewer, seeRoom, seeRoomAs } from '../chatrooms/access'
import { announceOwnUnread } from '../chatrooms/live'
import { numericId, type ParticipantRow } from '../chatrooms/repo'
import { rememberReadMark, rememberRoom } from '../chatrooms/room-state'
import { presentRooms } from '../chatrooms/service'
import { hydrate, type SharedPage } from './hydrate'
import { MAX_PAGE } from './model'
import { type NewestPage, newestFromRedis, newestPage } from './newest'
import type { presentConversation } from './present'
import { changedInRoom, findConversation, moveReadMark, pageOfRoom, type Scroll } from './repo'
import { reportedInChat, withoutReported } from './reported'

export interface PageQuery {
	chatroom_id?: string
	paginate_by?: number
	conversation_id?: string
	scroll_direction?: string
	include?: string
}

/** scroll_direction: '0' older, '1' newer; absent, empty or chat-js's 'undefined': older. */
function directionOf(value: string | undefined): 'older' | 'newer' {
	if (value === '1') return 'newer'
	if (value === undefined || value === '' || value === '0' || value === 'undefined') return 'older'
	throw badRequest('scroll_direction must be 0 or 1')
}

function scrollOf(query: PageQuery): Scroll {
	const direction = directionOf(query.scroll_direction)
	if (query.conversation_id === undefined || query.conversation_id === '') return { anchor: null }
	const anchor = numericId(query.conversation_id)
	if (!anchor) throw notFound('Conversation')
	return { anchor, direction, include: query.include === 'true' }
}

/**
 * chat-js conversationsFetch may name a conversation without its room: the room is the
 * conversation's (in the caller's community; seeing it is checked as for any page), and
 * the conversation itself is on the page, as the caller asked about it.
 */
async function withRoom(
	session: Session,
	query: PageQuery,
): Promise<PageQuery & { chatroom_id: string }> {
	if (query.chatroom_id !== undefined) return { ...query, chatroom_id: query.chatroom_id }
	if (!query.conversation_id) throw badRequest('chatroom_id is required')
	const id = numericId(query.conversation_id)
	const found = id ? await findConversation(sql, session.communityId, id) : null
	// a room the caller may not see answers as an unknown conversation would (no hint
	// that the id exists)
	const visible =
		found &&
		(await seeRoomAs(sql, chatViewer(session), found.chatroom_id).then(
			() => true,
			() => false,
		))
	if (!found || !visible) throw notFound('Conversation')
	return { ...query, chatroom_id: String(found.chatroom_id), include: query.include ?? 'true' }
}

/** A page of a room: raw JSON bytes (the cached newest page) or the data object. */
export type PageResult = { bytes: Buffer } | { data: SharedPage }

/** A page of a room as its reader may see it: without what they reported (reported.ts). */
export async function listConversations(session: Session, asked: PageQuery): Promise<PageResult> {
	const [page, reported] = await Promise.all([roomPage(session, asked), reportedInChat(session)])
	if (!reported) return page
	const data = 'bytes' in page ? (JSON.parse(page.bytes.toString()) as SharedPage) : page.data
	return { data: withoutReported(data, reported) }
}

async function roomPage(session: Session, asked: PageQuery): Promise<PageResult> {
	const query = await withRoom(session, asked)
	const scroll = scrollOf(query)
	const limit = Math.min(query.paginate_by ?? 20, MAX_PAGE)
	const chatroomId = numericId(query.chatroom_id)
	if (scroll.anchor === null && chatroomId) {
		const fast = await newestFromRedis(sql, chatViewer(session), chatroomId, limit)
		if (fast) return asResult(fast)
	}
	const { room, seat, viewer } = await seeRoomAs(sql, chatViewer(session), query.chatroom_id)
	if (scroll.anchor === null) {
		// Redis learns the room for the next reader (only readers it can serve: see newest.ts);
		// both Redis commands leave in one round trip (auto-pipelining).
		const remembered = !room.is_secret || isCmViewer(viewer) ? rememberRoom(room) : null
		const [, newest] = await Promise.all([remembered, newestPage(sql, viewer, room, limit)])
		await moveMark(room, seat, newest.newestId)
		return asResult(newest)
	}
	const rows = await pageOfRoom(sql, room.community_id, room.id, scroll, limit)
	// scrolling newer up to the end reads the newest conversations too
	if (scroll.direction === 'newer' && rows.length < limit)
		await moveMark(room, seat, rows.at(-1)?.id ?? null)
	const { conversations, users } = await hydrate(sql, viewer, rows)
	return { data: { conversations, users } }
}

const asResult = (newest: NewestPage): PageResult =>
	newest.bytes ? { bytes: newest.bytes } : { data: newest.page as SharedPage }

/**
 * Moves the reader's mark forward to `conversationId` (a write only when it moves) and
 * tells Redis where it is, so the next read of the same page skips Postgres.
 */
async function moveMark(
	room: { id: string; community_id: number },
	seat: ParticipantRow | null,
	conversationId: string | null,
) {
	if (!seat || !conversationId) return
	const chatroomId = room.id
	const unread =
		BigInt(seat.read_conversation_id) < BigInt(conversationId)
			? await moveReadMark(sql, room.community_id, chatroomId, seat.user_id, conversationId)
			: null
	// the reader's other devices learn the new count (both Redis calls leave together)
	await Promise.all([
		rememberReadMark(chatroomId, seat.user_id, conversationId),
		unread === null ? null : announceOwnUnread(room.community_id, seat.user_id, chatroomId, unread),
	])
}

export interface SyncQuery {
	chatroom_id: string
	min_timestamp?: number
	max_timestamp?: number
	cursor?: string
	page?: number
	page_size?: number
}

/** `<updated_at>:<id>` of the last row of a page: where the next page starts. */
const cursorOf = (row: { updated_at: number; id: string }) => `${row.updated_at}:${row.id}`

function parseCursor(cursor: string) {
	const match = /^(\d{1,16}):([1-9]\d{0,17})$/.exec(cursor)
	if (!match) throw badRequest('Invalid query: cursor is not a cursor this API returned')
	return { updatedAt: Number(match[1]), id: match[2] as string }
}

export async function syncConversations(session: Session, query: SyncQuery) {
	const viewer = chatViewer(session)
	const room = await seeRoom(sql, viewer, query.chatroom_id)
	const bounds = { min: query.min_timestamp ?? 0, max: query.max_timestamp ?? Date.now() }
	if (bounds.min > bounds.max)
		throw badRequest('Invalid query: min_timestamp must not be after max_timestamp')
	const { pageSize, offset } = paging(query.page, query.page_size, 50)
	const from = query.cursor ? { after: parseCursor(query.cursor) } : { skip: offset }
	const rows = await changedInRoom(sql, room.community_id, room.id, bounds, from, pageSize)
	const [hydrated, [chatroom], reported] = await Promise.all([
		hydrate(sql, viewer, rows),
		presentRooms(viewer, [room]),
		reportedInChat(viewer),
	])
	const { conversations, users, polls } = withoutReported(hydrated, reported)
	const last = rows.at(-1)
	return {
		conversations_data: conversations,
		user_meta: users,
		conv_polls_meta: polls,
		...syncMeta(conversations, chatroom),
		next_cursor: last && rows.length === pageSize ? cursorOf(last) : null,
	}
}

type Presented = ReturnType<typeof presentConversation>
type PresentedRoom = Awaited<ReturnType<typeof presentRooms>>[number] | undefined

/**
 * The rest of chat-js's declared SyncConversationResponse, from the same page: each
 * conversation's attachments, reactions and replied-to conversation keyed by its id
 * (they are inside each conversation too), the room and its community. Conversations
 * carry no widgets and a room no reactions of its own: those two are empty.
 */
function syncMeta(conversations: Presented[], chatroom: PresentedRoom) {
	const byId = <T>(pick: (c: Presented) => [string, T] | null): Record<string, T> =>
		Object.fromEntries(
			conversations.flatMap((c) => {
				const entry = pick(c)
				return entry ? [entry] : []
			}),
		)
	return {
		conv_attachments_meta: byId((c) => (c.attachments.length ? [c.id, c.attachments] : null)),
		conv_reactions_meta: byId((c) => (c.reactions.length ? [c.id, c.reactions] : null)),
		conversation_meta: byId((c) =>
			c.reply_conversation_object && c.reply_conversation
				? [c.reply_conversation, c.reply_conversation_object]
				: null,
		),
		chatroom_meta: chatroom ? { [chatroom.id]: chatroom } : {},
		community_meta: chatroom ? { id: chatroom.community_id, name: chatroom.community_name } : null,
		chatroom_reactions_meta: [],
		widgets: {},
	}
}
