// GET /chatroom/share: links that open a room. Any member who may see the room gets
// `community_share` (chat-js ShareChatrooomResponse): `public_link` for an open room,
// `private_link` for any room (opening either is GET /collabcard/:id, which joins only
// a viewer the room rule lets join), with ready-made texts. With `cohort_id` a CM also
// gets the cohort's `chatroom_share` link as before (cohort-rooms.ts shareLink).
// Links are built on PUBLIC_BASE_URL; chat-js' `domain` is not trusted into them.
import { config } from '../../config'
import { sql } from '../../lib/db'
import { forbidden } from '../../lib/errors'
import type { Session } from '../auth/plugin'
import { chatViewer, DM, isCmViewer, seeRoom } from './access'
import { shareLink } from './cohort-rooms'
import { communityName } from './repo'

export async function shareChatroom(
	session: Session,
	query: { chatroom_id: string; cohort_id?: string },
) {
	const viewer = chatViewer(session)
	const room = await seeRoom(sql, viewer, query.chatroom_id)
	if (room.type === DM) throw forbidden('A direct message cannot be shared')
	const cohortShare =
		query.cohort_id !== undefined && query.cohort_id !== ''
			? isCmViewer(viewer)
				? await shareLink(session, query.chatroom_id, query.cohort_id)
				: forbiddenCohortLink()
			: {}
	const base = config.PUBLIC_BASE_URL.replace(/\/+$/, '')
	const link = `${base}/collabcard/${room.id}`
	const place = `${room.title} on ${await communityName(sql, viewer.communityId)}`
	return {
		...cohortShare,
		community_share: {
			public_link: room.is_secret ? '' : link,
			private_link: link,
			public_link_text: room.is_secret ? '' : `Join ${place}: ${link}`,
			private_link_text: `Join ${place}: ${link}`,
			private_link_members_directory: '',
			private_link_text_members_directory: '',
		},
	}
}

function forbiddenCohortLink(): never {
	throw forbidden('Only community managers share a cohort link')
}
