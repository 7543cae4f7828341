// Who hears of a new conversation, resolved after it committed. The conversation's own
// statement writes a notice naming the room and the message (notice-repo.ts
// noticeCtes), so a message costs the same in a room of 10 or of 10,000 and its room's
// writers never wait on a room-sized write. A worker (a push source: every push engine
// runs it) expands due notices: the recipients from the seam (recipients.ts, pages of
// 1,000 participants), then their pushes and `notifications.chat` pages
// (notifications/chat.ts), and deletes the notices, all in one transaction — a crash
// leaves the notice to be expanded again, never half of it. After that commit each room
// of the batch tells its participants' live `me` scopes their unread count of it
// (chatrooms/live.ts): once per room however many of its messages the batch held.
import { acrossCommunities, type Db, sql } from '../../lib/db'
import { FAILING_AFTER, jobFailed, registerFailingJobs } from '../../lib/job-health'
import { log } from '../../lib/log'
import { addPushSource } from '../../push/sources'
import { listenedEvents } from '../../webhooks/outbox'
import { announceRoomUnreadSoon, type UnreadRoom } from '../chatrooms/live'
import { onConversationCreated } from '../notifications/chat'
import {
	claimNotices,
	deleteNotices,
	dueNoticeCommunities,
	failingNotices,
	failNotice,
	type NewNotice,
	type NoticeRow,
	noticeChannel,
	noticeCtes,
} from './notice-repo'
import {
	type Audience,
	type NewConversationFacts,
	recipientsAmong,
	roomAudience,
} from './recipients'

/** Notices expanded in one transaction. */
const BATCH = 32
const MAX_ATTEMPTS = 10

export { type NewNotice, noticeCtes }

/** `load` at most once per key for the life of one batch (the promise is shared). */
function oncePerKey<A extends unknown[], V>(
	keyOf: (...args: A) => string,
	load: (...args: A) => Promise<V>,
): (...args: A) => Promise<V> {
	const known = new Map<string, Promise<V>>()
	return (...args) => {
		const key = keyOf(...args)
		let value = known.get(key)
		if (!value) {
			value = load(...args)
			known.set(key, value)
		}
		return value
	}
}

/** The types each community listens for, read once per batch. */
type Listened = (tx: Db, communityId: number) => Promise<Set<string>>
const listenedOnce = (): Listened =>
	oncePerKey((_tx, communityId) => String(communityId), listenedEvents)

/**
 * Each room's audience, read once per batch: the notices of a busy room expanded
 * together (up to BATCH) share one read of its participants, not one each.
 */
type Audiences = (
	tx: Db,
	communityId: number,
	chatroomId: string,
	withDevice: boolean,
) => Promise<Audience>
const audiencesOnce = (): Audiences =>
	oncePerKey(
		(_tx, communityId, chatroomId, withDevice) => `${communityId}:${chatroomId}:${withDevice}`,
		(tx, communityId, chatroomId, withDevice) =>
			roomAudience(tx, communityId, chatroomId, { withDevice }),
	)

async function expand(tx: Db, n: NoticeRow, listened: Listened, audiences: Audiences) {
	const facts = {
		...n.facts,
		chatroomId: n.chatroom_id,
		authorId: n.author_id,
	} as unknown as NewConversationFacts
	const toWebhooks = (await listened(tx, n.community_id)).has('notifications.chat')
	await onConversationCreated(tx, {
		communityId: n.community_id,
		conversationId: n.conversation_id,
		chatroomId: n.chatroom_id,
		authorId: n.author_id,
		// Without a webhook to tell, only participants a push can reach are read.
		recipients: recipientsAmong(
			await audiences(tx, n.community_id, n.chatroom_id, !toWebhooks),
			facts,
		),
		roomTitle: n.message.room_title,
		authorName: n.message.author_name,
		text: n.message.text,
		toWebhooks,
	})
}

/**
 * Expands due notices, up to BATCH of a community together (the communities of the
 * BATCH oldest, found without a lock; each then claimed on its own, DESIGN §21); true
 * when any were expanded.
 */
export async function expandDueNotices(): Promise<boolean> {
	const communities = await acrossCommunities((tx) =>
		dueNoticeCommunities(tx, Date.now(), MAX_ATTEMPTS, BATCH),
	)
	let expanded = false
	for (const communityId of communities)
		if (await expandCommunityNotices(communityId)) expanded = true
	return expanded
}

async function expandCommunityNotices(communityId: number): Promise<boolean> {
	let notices: NoticeRow[]
	try {
		notices = await sql.begin(async (tx) => {
			const claimed = await claimNotices(tx, communityId, Date.now(), MAX_ATTEMPTS, BATCH)
			const [listened, audiences] = [listenedOnce(), audiencesOnce()]
			for (const notice of claimed) await expand(tx, notice, listened, audiences)
			await deleteNotices(tx, communityId, claimed)
			return claimed
		})
	} catch (error) {
		log.warn({ err: error }, 'chat notices: a batch failed; expanding them one by one')
		return expandOneByOne(communityId)
	}
	await announceUnread(notices)
	return notices.length > 0
}

/**
 * The unread counts of the rooms of expanded notices, one announcement per room. The
 * author is left out only when every message of the room in the batch was theirs (a
 * message of another changes their count too); a room announced less than a second ago
 * gets its count at the end of that second (chatrooms/live.ts announceRoomUnreadSoon).
 */
async function announceUnread(notices: NoticeRow[]): Promise<void> {
	const rooms = new Map<string, UnreadRoom>()
	for (const n of notices) {
		const key = `${n.community_id}:${n.chatroom_id}`
		const room = rooms.get(key)
		if (!room)
			rooms.set(key, {
				communityId: n.community_id,
				chatroomId: n.chatroom_id,
				except: n.author_id,
			})
		else if (room.except !== n.author_id) room.except = null
	}
	await Promise.all([...rooms.values()].map((room) => announceRoomUnreadSoon(room)))
}

/** After a failed batch: each notice alone, a failing one recorded and retried later. */
async function expandOneByOne(communityId: number): Promise<boolean> {
	const due = await claimNotices(sql, communityId, Date.now(), MAX_ATTEMPTS, BATCH)
	const expanded: NoticeRow[] = []
	for (const notice of due) {
		const only = { communityId, conversationId: notice.conversation_id }
		try {
			const done = await sql.begin(async (tx) => {
				const [claimed] = await claimNotices(
					tx,
					communityId,
					Date.now(),
					MAX_ATTEMPTS,
					1,
					notice.conversation_id,
				)
				if (!claimed) return null
				await expand(tx, claimed, listenedOnce(), audiencesOnce())
				await deleteNotices(tx, communityId, [claimed])
				return claimed
			})
			if (done) expanded.push(done)
		} catch (error) {
			const retryAt = Date.now() + Math.min(2 ** notice.attempts, 300) * 1000
			jobFailed('chat_notices', error, { ...only, attempts: notice.attempts + 1 })
			await failNotice(sql, notice, String(error), retryAt)
		}
	}
	await announceUnread(expanded)
	return false
}

addPushSource({ name: 'chat notices', channel: noticeChannel, drain: expandDueNotices })
// Shown as jobs_failing{kind="chat_notices"} and in GET /ready (lib/job-health.ts).
/** Chat notices that keep failing, in every community (a health count). */
const failingChatNotices = () => acrossCommunities((tx) => failingNotices(tx, FAILING_AFTER))
registerFailingJobs('chat_notices', failingChatNotices)
