// Direct messages (DESIGN section 19, chat-js DirectMessage): find or create the DM room
// of two members, whether the caller may DM (status), the per-day limit of new DMs, the
// DM tab's meta and the DM feed. Requests and blocking are requests.ts; who may post is
// rule.ts.
import { type Db, sql } from '../../lib/db'
import { AppError, badRequest, forbidden, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/plugin'
import { isCm } from '../auth/session'
import { type ChatViewer, chatViewer, DM } from '../chatrooms/access'
import { joinChatroom } from '../chatrooms/membership'
import {
	findChatroom,
	findChatrooms,
	findParticipant,
	insertChatroom,
	numericId,
} from '../chatrooms/repo'
import { findUserById, findUsersByRefs, type UserRow } from '../users/repo'
import { type DmRoom, dmFeedPage, presentDmRooms } from './present'
import {
	blockedBetween,
	claimPair,
	type DmRow,
	dmRoomsOf,
	findDmByPair,
	lockStarter,
	pairOf,
	setPairRoom,
	startedSince,
	unreadDmCount,
} from './repo'
import { dmSettings } from './settings'

const DAY_MS = 24 * 60 * 60 * 1000

export interface MemberRef {
	member_id?: string | number
	uuid?: string
}

/** The member named by id or uuid (the service uuid or the customer's id); 404 otherwise. */
export async function memberNamed(communityId: number, ref: MemberRef): Promise<UserRow> {
	let user: UserRow | null = null
	if (ref.uuid !== undefined && ref.uuid !== '')
		[user = null] = await findUsersByRefs(sql, communityId, [ref.uuid])
	else if (ref.member_id !== undefined) {
		const id = Number(numericId(ref.member_id))
		const row = id ? await findUserById(sql, communityId, id) : null
		user = row && !row.is_deleted ? row : null
	} else throw badRequest('member_id or uuid is required')
	if (!user) throw notFound('Member')
	return user
}

/** May `caller` start a DM with `other` under the community's rules (blocks aside)? */
async function mayDm(caller: Session, other: UserRow | null): Promise<boolean> {
	if (isCm(caller) || (other && other.role !== 'member')) return true
	return (await dmSettings(caller.communityId)).enabled
}

async function dmRoomFor(viewer: ChatViewer, dm: DmRow): Promise<DmRoom> {
	const room = dm.chatroom_id ? await findChatroom(sql, viewer.communityId, dm.chatroom_id) : null
	if (!room) throw notFound('Chatroom')
	return { room, dm }
}

async function presentOne(viewer: ChatViewer, dm: DmRow) {
	const [chatroom] = await presentDmRooms(viewer, [await dmRoomFor(viewer, dm)])
	return chatroom
}

/** The limit's state for a member starting a DM now (null: not limited). */
async function limitState(db: Db, session: Session, other: UserRow, limit: number | null) {
	if (limit === null || isCm(session) || other.role !== 'member') return null
	const started = await startedSince(db, session.communityId, session.userId, Date.now() - DAY_MS)
	const exceeded = started.length >= limit
	return {
		limit,
		exceeded,
		// when the oldest DM of the window leaves it, one more may start
		nextAt: exceeded ? (started[started.length - limit] as number) + DAY_MS : null,
	}
}

/**
 * POST /chatroom/dm/create: the DM room of the caller and the member, found or created.
 * Race-free: concurrent calls for one pair meet on dm_rooms' primary key (repo.claimPair),
 * so exactly one room exists per pair. A caller who left the room is seated again.
 */
export async function createDm(session: Session, ref: MemberRef) {
	const viewer = chatViewer(session)
	const other = await memberNamed(session.communityId, ref)
	if (other.id === session.userId) throw badRequest('You cannot send a direct message to yourself')
	const existing = await findDmByPair(sql, session.communityId, session.userId, other.id)
	if (existing?.chatroom_id) return { chatroom: await reopen(viewer, existing) }
	if (!(await mayDm(session, other)))
		throw forbidden('Direct messages between members are turned off in this community')
	if (await blockedBetween(sql, session.communityId, session.userId, other.id))
		throw forbidden('You cannot message this member: one of you blocked the other')
	const settings = await dmSettings(session.communityId)
	const requestNeeded = settings.requests_required && !isCm(session) && other.role === 'member'
	const limited = settings.daily_limit !== null && !isCm(session) && other.role === 'member'
	await sql.begin(async (tx) => {
		if (limited) {
			// one member's starts take turns, so concurrent ones cannot pass the limit together
			await lockStarter(tx, session.communityId, session.userId)
			const state = await limitState(tx, session, other, settings.daily_limit)
			if (state?.exceeded) throw limitReached(state.nextAt as number)
		}
		const now = Date.now()
		const claimed = await claimPair(tx, {
			communityId: session.communityId,
			createdBy: session.userId,
			other: other.id,
			requestNeeded,
			now,
		})
		if (!claimed) return
		const me = (await findUserById(tx, session.communityId, session.userId)) as UserRow
		const room = await insertChatroom(tx, {
			community_id: session.communityId,
			title: `${me.name} <> ${other.name}`.slice(0, 200),
			header: '',
			chatroom_image_url: '',
			type: DM,
			is_secret: true,
			created_by: session.userId,
			now,
		})
		const pair = pairOf(session.userId, other.id)
		await setPairRoom(tx, session.communityId, pair, room.id)
		const seating = { communityId: session.communityId, chatroomId: room.id }
		await joinChatroom(tx, { ...seating, userId: session.userId, method: 'self_joined' })
		await joinChatroom(tx, { ...seating, userId: other.id, method: 'self_joined' })
	})
	const dm = await findDmByPair(sql, session.communityId, session.userId, other.id)
	if (!dm?.chatroom_id) throw notFound('Chatroom')
	return { chatroom: await presentOne(viewer, dm) }
}

function limitReached(nextAt: number) {
	const seconds = Math.max(1, Math.ceil((nextAt - Date.now()) / 1000))
	return new AppError(429, 'You have reached the limit of new direct messages for today', {
		'retry-after': String(seconds),
	})
}

/** An existing DM: the caller is seated again if they had left it. */
async function reopen(viewer: ChatViewer, dm: DmRow) {
	const chatroomId = dm.chatroom_id as string
	if (!(await findParticipant(sql, viewer.communityId, chatroomId, viewer.userId)))
		await sql.begin((tx) =>
			joinChatroom(tx, {
				communityId: viewer.communityId,
				chatroomId,
				userId: viewer.userId,
				method: 'self_joined',
			}),
		)
	return presentOne(viewer, dm)
}

/** GET /community/dm/status: may the caller DM (anyone, or the named member)? */
export async function dmStatus(session: Session, ref: MemberRef & { chatroom_id?: string }) {
	const named = ref.uuid || ref.member_id !== undefined
	const other = named ? await memberNamed(session.communityId, ref) : null
	let show = await mayDm(session, other)
	let cta = 'route://dm_feed'
	if (other) {
		const dm = await findDmByPair(sql, session.communityId, session.userId, other.id)
		if (
			other.id === session.userId ||
			(await blockedBetween(sql, session.communityId, session.userId, other.id))
		)
			show = false
		cta = dm?.chatroom_id
			? `route://chatroom_detail?chatroom_id=${dm.chatroom_id}`
			: `route://create_dm?member_id=${other.id}&uuid=${other.uuid}`
	}
	return { show_dm: show, cta }
}

/** GET /chatroom/dm/limit: how many new DMs the caller may still start today. */
export async function dmLimit(session: Session, ref: MemberRef) {
	const other = await memberNamed(session.communityId, ref)
	const dm = await findDmByPair(sql, session.communityId, session.userId, other.id)
	const { daily_limit } = await dmSettings(session.communityId)
	const limited = dm?.chatroom_id ? null : await limitState(sql, session, other, daily_limit)
	return {
		is_request_dm_limit_exceeded: limited?.exceeded ?? false,
		new_request_dm_timestamp: limited?.nextAt ?? null,
		user_dm_limit:
			daily_limit === null ? null : { state: 1, duration: 'day', number_in_duration: daily_limit },
		chatroom_id: dm?.chatroom_id ? Number(dm.chatroom_id) : null,
	}
}

/** GET /home/dm/meta: whether to show the DM tab, and the unread count in DMs. */
export async function dmTab(session: Session) {
	const [settings, unread, rooms] = await Promise.all([
		dmSettings(session.communityId),
		unreadDmCount(sql, session.communityId, session.userId),
		dmRoomsOf(sql, session.communityId, session.userId, { min: 0, max: Date.now() }, 1, 0),
	])
	// members of a community without DMs keep the tab while they have DMs (with CMs)
	const hide = !settings.enabled && !isCm(session) && rooms.total === 0
	return {
		hide_dm_tab: hide,
		is_cm: isCm(session),
		unread_dm_count: unread,
		hide_dm_text: hide ? 'Direct messages are turned off in this community' : null,
	}
}

export interface DmFeedQuery {
	page?: number
	page_size?: number
	min_timestamp?: number
	max_timestamp?: number
}

/**
 * The caller's DM rooms, most recently active first, in the `/chatroom/sync` shape.
 * `/chatroom/sync` answers `chatroom_types` [10] with this.
 */
export async function dmRooms(session: Session, query: DmFeedQuery) {
	const viewer = chatViewer(session)
	const { pageSize, offset } = paging(query.page, query.page_size, 20)
	const bounds = { min: query.min_timestamp ?? 0, max: query.max_timestamp || Date.now() }
	const { rows, total } = await dmRoomsOf(
		sql,
		session.communityId,
		session.userId,
		bounds,
		pageSize,
		offset,
	)
	const rooms = await findChatrooms(
		sql,
		session.communityId,
		rows.map((r) => r.chatroom_id as string),
	)
	const roomById = new Map(rooms.map((r) => [r.id, r]))
	const dms = rows.flatMap((dm) => {
		const room = roomById.get(dm.chatroom_id as string)
		return room ? [{ room, dm }] : []
	})
	const page = await dmFeedPage(session.communityId, await presentDmRooms(viewer, dms))
	return { ...page, total_chatroom_count: total }
}
