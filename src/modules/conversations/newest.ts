// A room's newest page, the hot read of chat: served from Redis when the room has not
// changed. The entry is keyed by the room's `version` (read with the room in the
// access query and bumped in the transaction of every conversation write), so a
// reader that sees version V gets a page written at V or later, never an older one,
// and nothing has to be invalidated. Entries expire after a minute (members' names
// and images in them follow within that time).
//
// Entry format: `<newest id> <live poll ids, comma-separated>\n<page JSON>`. A page
// without polls is sent as the stored bytes; poll fields differ per viewer, so a page
// with polls is parsed and completed for the viewer.
import type { Db } from '../../lib/db'
import { keys } from '../../lib/keys'
import { redis } from '../../lib/redis'
import type { ChatViewer } from '../chatrooms/access'
import type { ChatroomRow } from '../chatrooms/repo'
import { hydrateShared, livePollIds, type SharedPage, withPolls } from './hydrate'
import { pageOfRoom } from './repo'

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

export async function newestPage(
	db: Db,
	viewer: ChatViewer,
	room: ChatroomRow,
	limit: number,
): Promise<NewestPage> {
	const key = keys.chatNewest(room.id, room.version, limit)
	const cached = await redis.getBuffer(key)
	if (cached) return fromEntry(db, viewer, cached)
	const rows = await pageOfRoom(db, room.id, { anchor: null }, limit)
	const shared = await hydrateShared(db, rows)
	const newestId = rows.at(-1)?.id ?? null
	const polls = livePollIds(shared)
	const json = JSON.stringify(shared)
	await redis.set(key, `${newestId ?? ''} ${polls.join(',')}\n${json}`, 'EX', TTL_SECONDS)
	if (polls.length === 0) return { newestId, bytes: Buffer.from(json), page: null }
	return { newestId, bytes: null, page: await withPolls(db, viewer, shared) }
}

async function fromEntry(db: Db, viewer: ChatViewer, entry: Buffer): Promise<NewestPage> {
	const split = entry.indexOf(NEWLINE)
	const [newest = '', polls = ''] = entry.subarray(0, split).toString().split(' ')
	const newestId = newest === '' ? null : newest
	const body = entry.subarray(split + 1)
	if (polls === '') return { newestId, bytes: body, page: null }
	const shared = JSON.parse(body.toString()) as SharedPage
	return { newestId, bytes: null, page: await withPolls(db, viewer, shared) }
}
