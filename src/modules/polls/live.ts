// A vote's live event in its room (`chatroom:<id>` scope, after the ballot committed):
// the totals when every member may see them now (open polls, ended polls), else only
// that the poll moved — deferred or instant results stay with those who may see them,
// who refetch the poll. Votes arriving while an announcement runs share the next one
// (lib/coalesce.ts): it reads the totals after all of them, so the room hears the
// latest state once instead of once per ballot (64 voters on one poll made the tally
// read and the publish half of a vote's cost).
import { coalesce } from '../../lib/coalesce'
import { sql } from '../../lib/db'
import { liveScopes, publishLive } from '../../live'
import type { PollRow } from './model'
import { showsResults } from './present'
import { tallies } from './repo'

/** Anyone in the room: not the creator, not a CM, not a voter. */
const anyMember = { userId: 0, isCm: false }

type AnnouncedPoll = Pick<
	PollRow,
	'conversation_id' | 'community_id' | 'chatroom_id' | 'creator_id' | 'expiry_time' | 'poll_type'
>

const announcements = coalesce<AnnouncedPoll, void>({
	together: async (polls) => {
		const distinct = new Map(polls.map((poll) => [poll.conversation_id, poll]))
		for (const poll of distinct.values()) await announceNow(poll)
		return polls.map(() => undefined)
	},
})

/** Tells the poll's room its new totals, after the caller's ballot committed. */
export const announceVote = (poll: AnnouncedPoll): Promise<void> => announcements.run(poll)

async function announceNow(poll: AnnouncedPoll): Promise<void> {
	const data: Record<string, unknown> = { conversation_id: poll.conversation_id }
	if (showsResults(poll, anyMember, false, Date.now())) {
		const rows = await tallies(sql, poll.community_id, [poll.conversation_id])
		data.voters = rows.find((r) => r.option_id === null)?.votes ?? 0
		data.options = rows
			.filter((r) => r.option_id !== null)
			.map((r) => ({ id: r.option_id, votes_count: r.votes }))
	}
	await publishLive(liveScopes.chatroom(poll.community_id, poll.chatroom_id), {
		type: 'poll.votes',
		data,
	})
}
