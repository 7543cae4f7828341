// A vote's live event in its room (`chatroom:<id>` scope, after the ballot committed):
// the totals when every member may see them now (open polls, ended polls), else only
// that the poll moved — deferred or instant results stay with those who may see them,
// who refetch the poll.
import { sql } from '../../lib/db'
import { liveScopes, publishLive } from '../../live'
import type { PollRow } from './model'
import { showsResults } from './present'
import { tallies } from './repo'

/** Anyone in the room: not the creator, not a CM, not a voter. */
const anyMember = { userId: 0, isCm: false }

export async function announceVote(
	poll: Pick<
		PollRow,
		'conversation_id' | 'chatroom_id' | 'creator_id' | 'expiry_time' | 'poll_type'
	>,
): Promise<void> {
	const data: Record<string, unknown> = { conversation_id: poll.conversation_id }
	if (showsResults(poll, anyMember, false, Date.now())) {
		const rows = await tallies(sql, [poll.conversation_id])
		data.voters = rows.find((r) => r.option_id === null)?.votes ?? 0
		data.options = rows
			.filter((r) => r.option_id !== null)
			.map((r) => ({ id: r.option_id, votes_count: r.votes }))
	}
	await publishLive(liveScopes.chatroom(poll.chatroom_id), { type: 'poll.votes', data })
}
