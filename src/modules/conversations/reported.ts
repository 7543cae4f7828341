// What a member reported in chat leaves their own chat pages (DESIGN §17): the
// conversation itself, and every message of a member they reported. Pages are shared
// by every reader of a room (newest.ts), so this is applied after them, per viewer,
// from the viewer's exclusions (timelines/viewer-state.ts: one SMEMBERS that rides the
// page's own round trip). A viewer who reported nothing in chat pays nothing more.
import { type ChatExclusions, type Reader, viewerBlocks } from '../../timelines'
import type { Conversation } from './present'

/** The conversations and members the reader reported in chat; undefined when none. */
export const reportedInChat = (reader: Reader): Promise<ChatExclusions | undefined> =>
	viewerBlocks(reader).then((excluded) => excluded.chat)

const isReported = (c: Conversation, chat: ChatExclusions) =>
	chat.conversations.has(c.id) || (c.member !== null && chat.members.has(Number(c.member.id)))

/** The page without what its viewer reported (the same page when they reported nothing). */
export function withoutReported<T extends { conversations: Conversation[] }>(
	page: T,
	chat: ChatExclusions | undefined,
): T {
	if (!chat || !page.conversations.some((c) => isReported(c, chat))) return page
	return { ...page, conversations: page.conversations.filter((c) => !isReported(c, chat)) }
}
