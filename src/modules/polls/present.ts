// The poll fields of a state-10 conversation as a viewer sees them (DESIGN §8): counts
// and voters only while results are shown to that viewer, integer percentages of the
// distinct voters, and the "N members voted" line.
import type { Member } from '../users/present'
import { type OptionRow, type PollRow, PollType } from './model'

export interface PollViewer {
	userId: number
	isCm: boolean
}

export const isExpired = (poll: Pick<PollRow, 'expiry_time'>, now: number) =>
	poll.expiry_time !== null && now >= poll.expiry_time

/** Creator and CMs always; everyone after expiry and in open polls; in instant polls once voted. */
export function showsResults(
	poll: Pick<PollRow, 'creator_id' | 'expiry_time' | 'poll_type'>,
	viewer: PollViewer,
	voted: boolean,
	now: number,
): boolean {
	if (poll.creator_id === viewer.userId || viewer.isCm || isExpired(poll, now)) return true
	if (poll.poll_type === PollType.open) return true
	return poll.poll_type === PollType.instant && voted
}

export function pollAnswerText(voters: number): string {
	if (voters === 0) return 'Be the first to vote'
	return voters === 1 ? '1 member voted on this poll' : `${voters} members voted on this poll`
}

export interface OptionCounts {
	votes: Map<string, number>
	voters: number
}

export function presentOption(
	option: Pick<OptionRow, 'id' | 'text'>,
	counts: OptionCounts,
	selected: boolean,
	shown: boolean,
	member: Member | null,
) {
	const votes = shown ? (counts.votes.get(option.id) ?? 0) : 0
	return {
		id: option.id,
		text: option.text,
		is_selected: selected,
		no_votes: votes,
		percentage: shown && counts.voters > 0 ? Math.floor((votes * 100) / counts.voters) : 0,
		member,
	}
}

export type PollRules = Omit<PollRow, 'conversation_id' | 'chatroom_id' | 'created_at'>

export function presentPoll(
	poll: PollRules,
	options: ReturnType<typeof presentOption>[],
	voters: number,
	shown: boolean,
) {
	return {
		poll_type: poll.poll_type,
		multiple_select_state: poll.multiple_select_state,
		multiple_select_no: poll.multiple_select_no,
		is_anonymous: poll.is_anonymous,
		allow_add_option: poll.allow_add_option,
		allow_vote_change: poll.allow_vote_change,
		no_poll_expiry: poll.expiry_time === null,
		expiry_time: poll.expiry_time,
		to_show_results: shown,
		poll_answer_text: pollAnswerText(voters),
		polls: options,
	}
}

export type PollFields = ReturnType<typeof presentPoll>
