// Poll rules (DESIGN §8): creation through POST /conversation (prepared before the
// conversation is written, saved inside its transaction), options added later, votes
// submitted and the voters listed. A vote is one upsert of the voter's ballot, so the
// database keeps exactly one ballot per voter whatever arrives concurrently.
import type { Db } from '../../lib/db'
import { sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { paging } from '../../lib/paging'
import type { Session } from '../auth/plugin'
import { chatViewer, isCmViewer, seeRoomAs } from '../chatrooms/access'
import { numericId } from '../chatrooms/repo'
import { presentMember } from '../users/present'
import { findUsersByIds } from '../users/repo'
import { MAX_POLL_OPTIONS } from './configuration/model'
import { pollConfigurationForPoll } from './configuration/service'
import { resolvePollDraft } from './draft'
import { announceVote } from './live'
import type { PollCreateInput, PollDraft } from './model'
import { SelectState } from './model'
import {
	isExpired,
	type PollFields,
	type PollViewer,
	presentOption,
	presentPoll,
	showsResults,
} from './present'
import {
	ballotsOf,
	castBallot,
	countOptions,
	findOptions,
	findPoll,
	findPolls,
	insertOption,
	insertPoll,
	lockPoll,
	type PollKeys,
	tallies,
	votersOf,
} from './repo'
import { forgetPoll, type PollWithOptions, pollWithOptions } from './rules-cache'

export const POLL_ENDED = 'Poll has been ended'
export const ALREADY_SUBMITTED = 'Poll already submitted'

/** Checks a poll body against the community's configuration; call before writing the conversation. */
export async function preparePoll(communityId: number, body: PollCreateInput): Promise<PollDraft> {
	return resolvePollDraft(body, await pollConfigurationForPoll(communityId), Date.now())
}

/** Stores the poll of a conversation just written in `tx`. */
export const savePoll = (tx: Db, keys: PollKeys, draft: PollDraft) =>
	insertPoll(tx, keys, draft, Date.now())

/** Poll fields for each poll among `conversationIds`, as `viewer` sees them. */
export async function pollViews(
	db: Db,
	communityId: number,
	conversationIds: string[],
	viewer: PollViewer,
	now = Date.now(),
): Promise<Map<string, PollFields>> {
	const polls = await findPolls(db, communityId, conversationIds)
	const views = new Map<string, PollFields>()
	if (polls.length === 0) return views
	const ids = polls.map((poll) => poll.conversation_id)
	const [options, counts, ballots] = await Promise.all([
		findOptions(db, communityId, ids),
		tallies(db, communityId, ids),
		ballotsOf(db, communityId, viewer.userId, ids),
	])
	const members = await membersById(db, (polls[0] as (typeof polls)[number]).community_id, [
		...new Set(options.map((o) => o.member_id)),
	])
	const mine = new Map(ballots.map((b) => [b.conversation_id, new Set(b.option_ids)]))
	for (const poll of polls) {
		const id = poll.conversation_id
		const votes = new Map<string, number>()
		let voters = 0
		for (const row of counts.filter((c) => c.conversation_id === id)) {
			if (row.option_id === null) voters = row.votes
			else votes.set(row.option_id, row.votes)
		}
		const chosen = mine.get(id) ?? new Set<string>()
		const shown = showsResults(poll, viewer, chosen.size > 0, now)
		const presented = options
			.filter((option) => option.conversation_id === id)
			.map((option) =>
				presentOption(
					option,
					{ votes, voters },
					chosen.has(option.id),
					shown,
					members.get(option.member_id) ?? null,
				),
			)
		views.set(id, presentPoll(poll, presented, voters, shown))
	}
	return views
}

async function membersById(db: Db, communityId: number, ids: number[]) {
	const users = await findUsersByIds(db, communityId, ids)
	return new Map(users.map((user) => [user.id, presentMember(user)]))
}

/**
 * The poll of a conversation in a room the viewer may see (404 otherwise). Voting and
 * adding options also need a seat in the room (or the CM role): 403 otherwise. Polls
 * in announcement rooms take votes from their seated members. The viewer comes back
 * with the role as stored now (a CM grant or removal applies at once).
 */
async function visiblePoll(
	db: Db,
	session: Session,
	conversationId: string | number,
	need: 'see' | 'take part',
) {
	const id = numericId(conversationId)
	const poll = id ? await findPoll(db, session.communityId, id) : null
	if (!poll) throw notFound('Poll')
	const { seat, viewer } = await seeRoomAs(db, chatViewer(session), poll.chatroom_id)
	if (need === 'take part' && !seat && !isCmViewer(viewer))
		throw forbidden('Join the chatroom to take part in its polls')
	const pollViewer: PollViewer = { userId: viewer.userId, isCm: isCmViewer(viewer) }
	return { poll, viewer: pollViewer }
}

export async function addOption(session: Session, conversationId: string | number, text: string) {
	const option = text.trim()
	if (option === '') throw badRequest('Poll options cannot be empty')
	const { poll, viewer } = await visiblePoll(sql, session, conversationId, 'take part')
	if (!poll.allow_add_option) throw badRequest('Adding options is not allowed on this poll')
	const now = Date.now()
	if (isExpired(poll, now)) throw badRequest(POLL_ENDED)
	const row = await sql.begin(async (tx) => {
		// The poll row lock orders concurrent adds, so the option limit holds.
		await lockPoll(tx, poll.community_id, poll.conversation_id)
		if ((await countOptions(tx, poll.community_id, poll.conversation_id)) >= MAX_POLL_OPTIONS)
			throw badRequest(`A poll has at most ${MAX_POLL_OPTIONS} options`)
		const inserted = await insertOption(
			tx,
			poll.community_id,
			poll.conversation_id,
			option,
			session.userId,
			now,
		)
		if (!inserted) throw badRequest(`Poll options must be distinct: "${option}" is already one`)
		return inserted
	})
	forgetPoll(poll.conversation_id)
	const views = await pollViews(sql, poll.community_id, [poll.conversation_id], viewer)
	return { poll: views.get(poll.conversation_id)?.polls.find((o) => o.id === row.id) }
}

/**
 * A vote: the poll's rules come from the process copy (rules-cache.ts), the choice is
 * checked against them, and seat check + ballot upsert are one statement. Only when
 * that statement finds no seat does the slow path decide between 404 (a room the voter
 * may not see) and 403.
 */
export async function submitVote(
	session: Session,
	conversationId: string | number,
	chosen: { id: string | number }[],
) {
	const id = numericId(conversationId)
	const wanted = chosen.map((choice) => numericId(choice.id))
	const poll = id ? await pollWithOptions(sql, session.communityId, id, wanted) : null
	if (!poll) throw notFound('Poll')
	const now = Date.now()
	const optionIds = await refusedAfterAccess(session, poll.conversation_id, () => {
		if (isExpired(poll, now)) throw badRequest(POLL_ENDED)
		return checkedChoice(poll, wanted)
	})
	const result = await castBallot(sql, {
		conversationId: poll.conversation_id,
		communityId: session.communityId,
		userId: session.userId,
		isCm: isCmViewer(session),
		optionIds,
		allowChange: poll.allow_vote_change,
		now,
	})
	if (!result.found) {
		forgetPoll(poll.conversation_id)
		throw notFound('Poll')
	}
	if (!result.seated) {
		await visiblePoll(sql, session, poll.conversation_id, 'take part')
		throw forbidden('Join the chatroom to take part in its polls')
	}
	if (!result.cast) throw badRequest(ALREADY_SUBMITTED)
	await announceVote(poll)
}

/**
 * Runs the rule checks of a vote; when one refuses, the voter's access is checked
 * first, so a member who may not see the room gets 404 (and one without a seat 403)
 * rather than learning the poll's rules.
 */
async function refusedAfterAccess<T>(session: Session, conversationId: string, rules: () => T) {
	try {
		return rules()
	} catch (refusal) {
		await visiblePoll(sql, session, conversationId, 'take part')
		throw refusal
	}
}

/** The chosen option ids: options of this poll (404 otherwise), distinct, within the select rule (both faces: chat and feed polls). */
export function checkedChoice(
	poll: Pick<PollWithOptions, 'option_ids' | 'multiple_select_no' | 'multiple_select_state'>,
	ids: (string | null)[],
): string[] {
	const known = new Set(poll.option_ids)
	if (ids.some((id) => id === null || !known.has(id))) throw notFound('Poll option')
	const distinct = [...new Set(ids as string[])]
	if (distinct.length !== ids.length) throw badRequest('An option can be chosen only once')
	const n = poll.multiple_select_no
	const count = distinct.length
	if (count === 0) throw badRequest('Choose at least one option in polls')
	const plural = (k: number) => `${k} option${k === 1 ? '' : 's'}`
	if (poll.multiple_select_state === SelectState.exactly && count !== n)
		throw badRequest(`Select exactly ${plural(n)}`)
	if (poll.multiple_select_state === SelectState.at_max && count > n)
		throw badRequest(`Select at most ${plural(n)}`)
	if (poll.multiple_select_state === SelectState.at_least && count < n)
		throw badRequest(`Select at least ${plural(n)}`)
	return distinct
}

/** Voters of one option; empty for anonymous polls and while results are hidden from the viewer. */
export async function listVoters(
	session: Session,
	query: { conversation_id: string; poll_id: string; page?: number; page_size?: number },
) {
	const { poll, viewer } = await visiblePoll(sql, session, query.conversation_id, 'see')
	const optionId = numericId(query.poll_id)
	if (!optionId || !poll.option_ids.includes(optionId)) throw notFound('Poll option')
	const [ballot] = await ballotsOf(sql, poll.community_id, viewer.userId, [poll.conversation_id])
	const shown = showsResults(poll, viewer, ballot !== undefined, Date.now())
	if (poll.is_anonymous || !shown) return { members: [], total_count: 0 }
	const page = paging(query.page, query.page_size, 20)
	const { userIds, total } = await votersOf(
		sql,
		poll.community_id,
		poll.conversation_id,
		optionId,
		page.pageSize,
		page.offset,
	)
	const members = await membersById(sql, poll.community_id, userIds)
	return {
		members: userIds.map((id) => members.get(id)).filter((m) => m !== undefined),
		total_count: total,
	}
}
