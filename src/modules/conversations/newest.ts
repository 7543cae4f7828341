// A room's newest page, the hot read of chat. The page is stored in Redis under one
// key per room and page size, labelled with the room version it was read at, and
// served only when that label is not older than the room's version (chatrooms/
// room-state.ts: raised by every conversation write in its transaction), so a reader
// never gets a page older than the room, and nothing has to be invalidated.
//
// Two ways in:
//  - `newestFromRedis`: an open room (or a CM reading a secret one) that Redis knows:
//    room, version, the reader's last read mark and the page in ONE round trip after
//    the auth hooks, no Postgres at all while the reader's mark is already at the
//    newest conversation. Anything it cannot settle (unknown room, secret room for a
//    member, no page or an older one) answers null and the caller goes the full way.
//  - `newestPage`: after the room was read from Postgres (the full access rule).
//
// Entry format: `<version> <newest id> <live poll ids, comma-separated>\n<page JSON>`.
// A page without polls is sent as the stored bytes; poll fields differ per viewer, so
// a page with polls is parsed and completed for the viewer. Entries expire after a
// minute (members' names and images in them follow within that time).
import type { Db } from '../../lib/db'
import { keys } from '../../lib/keys'
import { redis } from '../../lib/redis'
import { type ChatViewer, DM, isCmViewer } from '../chatrooms/access'
import { announceOwnUnread } from '../chatrooms/live'
import type { ChatroomRow } from '../chatrooms/repo'
import { rememberReadMark, roomState } from '../chatrooms/room-state'
import { hydrateShared, livePollIds, type SharedPage, withPolls } from './hydrate'
import { moveReadMark, pageOfRoom } from './repo'

const TTL_SECONDS = 60
const NEWLINE = 0x0a

export interface NewestPage {
	/** id of the newest conversation on the page (null: the room is empty) */
	newestId: string | null
	/** the page JSON, when it is the same for every viewer */
	bytes: Buffer | null
	/** the page completed for the viewer, when it holds polls */
	page: SharedPage | null
}

interface Entry {
	version: bigint
	newestId: string | null
	polls: string
	body: Buffer
}

function parseEntry(entry: Buffer | null): Entry | null {
	if (!entry) return null
	const split = entry.indexOf(NEWLINE)
	const [version = '', newest = '', polls = ''] = entry.subarray(0, split).toString().split(' ')
	if (split < 0 || !/^\d+$/.test(version)) return null
	return {
		version: BigInt(version),
		newestId: newest === '' ? null : newest,
		polls,
		body: entry.subarray(split + 1),
	}
}

async function served(db: Db, viewer: ChatViewer, entry: Entry): Promise<NewestPage> {
	const { newestId, body } = entry
	if (entry.polls === '') return { newestId, bytes: body, page: null }
	const shared = JSON.parse(body.toString()) as SharedPage
	return { newestId, bytes: null, page: await withPolls(db, viewer, shared) }
}

/** The newest page without Postgres, or null when Redis alone cannot answer. */
export async function newestFromRedis(
	db: Db,
	viewer: ChatViewer,
	chatroomId: string,
	limit: number,
): Promise<NewestPage | null> {
	const known = await roomState(chatroomId, viewer.userId, keys.chatNewest(chatroomId, limit))
	if (!known) return null
	const { state } = known
	if (state.communityId !== viewer.communityId) return null
	// a DM is seen by its seated members only, which Redis does not hold
	if ((state.isSecret && !isCmViewer(viewer)) || state.type === DM) return null
	const entry = parseEntry(known.entry)
	if (!entry || entry.version < BigInt(state.version)) return null
	// Marks only move forward: one already at the newest conversation needs no write.
	// (A reader without a seat matches no row; the mark is remembered all the same.)
	if (entry.newestId && BigInt(state.readMark) < BigInt(entry.newestId)) {
		const unread = await moveReadMark(
			db,
			viewer.communityId,
			chatroomId,
			viewer.userId,
			entry.newestId,
		)
		await Promise.all([
			rememberReadMark(chatroomId, viewer.userId, entry.newestId),
			unread === null
				? null
				: announceOwnUnread(viewer.communityId, viewer.userId, chatroomId, unread),
		])
	}
	return served(db, viewer, entry)
}

/** The newest page of a room read from Postgres at `room.version`: the stored one when current. */
export async function newestPage(
	db: Db,
	viewer: ChatViewer,
	room: ChatroomRow,
	limit: number,
): Promise<NewestPage> {
	const key = keys.chatNewest(room.id, limit)
	const stored = parseEntry(await redis.getBuffer(key))
	if (stored && stored.version >= BigInt(room.version)) return served(db, viewer, stored)
	const rows = await pageOfRoom(db, room.community_id, room.id, { anchor: null }, limit)
	const shared = await hydrateShared(db, rows)
	const newestId = rows.at(-1)?.id ?? null
	const polls = livePollIds(shared)
	const json = JSON.stringify(shared)
	const header = `${room.version} ${newestId ?? ''} ${polls.join(',')}\n`
	await redis.set(key, header + json, 'EX', TTL_SECONDS)
	if (polls.length === 0) return { newestId, bytes: Buffer.from(json), page: null }
	return { newestId, bytes: null, page: await withPolls(db, viewer, shared) }
}
