// The feed face of the poll engine (DESIGN §19: one engine, two faces). A feed poll is
// a post's attachment of type "poll"; it is created in the post's transaction as a
// widget of the post (its id is the poll id feed-js sends to /poll/:id) with its rules,
// options and ballots in the feed_poll tables. Every rule is the chat poll's: the
// community's chat_poll configuration merged by resolvePollDraft, the select rule of
// checkedChoice, results shown by showsResults (deferred results never before expiry,
// not even as counts), one upserted ballot per voter. Who may see the poll (the post's
// visibility) is the caller's to check: posts/polls.
import type { Db } from '../../lib/db'
import { badRequest, notFound } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { presentMember } from '../users/present'
import { findUsersByIds, type UserRow } from '../users/repo'
import { POLL_WIDGET } from '../widgets/model'
import { presentWidget } from '../widgets/present'
import { findWidget, insertWidget, updateWidget, type WidgetRow } from '../widgets/repo'
import { MAX_POLL_OPTIONS, pollTypes, selectStates } from './configuration/model'
import { pollConfigurationForPoll } from './configuration/service'
import { resolvePollDraft } from './draft'
import { pollInputOf } from './feed-input'
import {
	castFeedBallot,
	type FeedOptionRow,
	type FeedPollRow,
	feedBallotOf,
	feedTallies,
	feedVoters,
	findFeedOptions,
	findFeedPoll,
	findFeedPolls,
	insertFeedOption,
	insertFeedPoll,
} from './feed-repo'
import type { PollDraft } from './model'
import { isExpired, type PollViewer, presentOption, presentPoll, showsResults } from './present'
import { ALREADY_SUBMITTED, checkedChoice, POLL_ENDED } from './service'

export type { FeedPollRow } from './feed-repo'

interface PostKeys {
	communityId: number
	postId: string
	creatorId: number
}

/** The rules as names (feed-js's form), for the attachment's meta and the widget. */
function rulesOf(question: string, draft: Omit<PollDraft, 'options'>) {
	return {
		title: question,
		poll_type: pollTypes[draft.poll_type],
		multiple_select_state: selectStates[draft.multiple_select_state],
		multiple_select_number: draft.multiple_select_no,
		is_anonymous: draft.is_anonymous,
		allow_add_option: draft.allow_add_option,
		allow_vote_change: draft.allow_vote_change,
		expiry_time: draft.expiry_time,
	}
}

/** The widget's metadata: the rules and the options with their ids (what a client votes with). */
const widgetMetadata = (rules: object, options: FeedOptionRow[]) => ({
	...rules,
	options: options.map((o) => ({ id: o.id, text: o.text })),
})

/**
 * Creates the poll of a post's attachment `index` from its meta (feed-js: title or
 * poll_question, options, poll_type, multiple_select_state, multiple_select_number,
 * expiry_time, is_anonymous, allow_add_option; or the chat poll's field names) and
 * answers its widget and the attachment's stored meta. An edit that keeps the post's
 * poll (its `entity_id`) keeps it as it is.
 */
export async function createFeedPoll(
	tx: Db,
	keys: PostKeys,
	meta: Record<string, unknown>,
	index: number,
): Promise<{ widget: WidgetRow; meta: Record<string, unknown> }> {
	const kept = await keptPoll(tx, keys, meta.entity_id)
	if (kept) return kept
	const input = pollInputOf(meta, index)
	const now = Date.now()
	const draft = resolvePollDraft(input, await pollConfigurationForPoll(keys.communityId, tx), now)
	const question = (input.text ?? '').trim()
	const pollId = newId()
	const options = await insertFeedPoll(
		tx,
		{ communityId: keys.communityId, pollId, postId: keys.postId, creatorId: keys.creatorId },
		question,
		draft,
		now,
	)
	const rules = rulesOf(question, draft)
	const widget = await insertWidget(tx, {
		id: pollId,
		community_id: keys.communityId,
		parent_entity_id: keys.postId,
		parent_entity_type: 'post',
		company_id: null,
		metadata: widgetMetadata(rules, options),
		// marks the widget as a poll's: PUT /widget leaves it alone (widgets/service.ts)
		meta: { type: POLL_WIDGET },
		created_by: keys.creatorId,
		created_at: now,
	})
	if (!widget) throw new Error('a new poll widget collided')
	return { widget, meta: { entity_id: pollId, ...rules, options: draft.options } }
}

async function keptPoll(tx: Db, keys: PostKeys, entityId: unknown) {
	if (typeof entityId !== 'string' || entityId === '') return null
	const poll = await findFeedPoll(tx, keys.communityId, entityId)
	if (!poll || poll.post_id !== keys.postId)
		throw badRequest('attachment entity_id is not a poll of this post')
	const widget = await findWidget(tx, keys.communityId, poll.id)
	if (!widget) return null
	const options = await findFeedOptions(tx, keys.communityId, poll.id)
	return {
		widget,
		meta: {
			entity_id: poll.id,
			...rulesOf(poll.question, poll),
			options: options.map((o) => o.text),
		},
	}
}

/** The poll of a post, or null (another community's id, an unknown one). */
export const findPollOfPost = (db: Db, communityId: number, pollId: string) =>
	findFeedPoll(db, communityId, pollId)

/**
 * The poll's widget as `viewer` sees it: the widget with `lm_meta` — options with
 * `vote_count` (and `no_votes`), `percentage` and `is_selected`, `voters_count`,
 * `to_show_results` — counts only while results are shown to this viewer.
 */
export async function feedPollWidget(db: Db, poll: FeedPollRow, viewer: PollViewer) {
	const c = poll.community_id
	const [widget, options, counts, ballot] = await Promise.all([
		findWidget(db, c, poll.id),
		findFeedOptions(db, c, poll.id),
		feedTallies(db, c, poll.id),
		feedBallotOf(db, c, poll.id, viewer.userId),
	])
	const votes = new Map<string, number>()
	let voters = 0
	for (const row of counts) {
		if (row.option_id === null) voters = row.votes
		else votes.set(row.option_id, row.votes)
	}
	const chosen = new Set(ballot ?? [])
	const shown = showsResults(poll, viewer, chosen.size > 0, Date.now())
	const members = await membersById(db, c, [...new Set(options.map((o) => o.member_id))])
	const presented = options.map((option) => {
		const member = members.get(option.member_id) ?? null
		const view = presentOption(option, { votes, voters }, chosen.has(option.id), shown, member)
		return { ...view, vote_count: view.no_votes, uuid: member?.uuid ?? null }
	})
	const fields = presentPoll(poll, presented, voters, shown)
	// Written with the poll in one transaction, and never deleted (widgets have no delete).
	if (!widget) throw notFound('Poll')
	return {
		...presentWidget(widget),
		id: poll.id,
		lm_meta: {
			...fields,
			options: presented,
			voters_count: voters,
			is_expired: isExpired(poll, Date.now()),
		},
	}
}

/**
 * A post's widgets with its polls as `viewer` sees them (`lm_meta`: the viewer's choice,
 * and counts only while results are shown); other widgets as they are. One query when
 * the post has widgets, none otherwise.
 */
export async function withPollResults<W>(
	db: Db,
	communityId: number,
	widgets: Record<string, W>,
	viewer: PollViewer,
): Promise<Record<string, W | Awaited<ReturnType<typeof feedPollWidget>>>> {
	const polls = await findFeedPolls(db, communityId, Object.keys(widgets))
	if (polls.length === 0) return widgets
	const seen = await Promise.all(polls.map((poll) => feedPollWidget(db, poll, viewer)))
	return { ...widgets, ...Object.fromEntries(seen.map((w) => [w.id, w])) }
}

async function membersById(db: Db, communityId: number, ids: number[]) {
	const users = await findUsersByIds(db, communityId, ids)
	return new Map(users.map((user) => [user.id, presentMember(user)]))
}

/** Adds an option (when the poll allows it, before expiry, at most MAX_POLL_OPTIONS, distinct). */
export async function addFeedOption(tx: Db, poll: FeedPollRow, userId: number, raw: string) {
	const text = raw.trim()
	if (text === '') throw badRequest('Poll options cannot be empty')
	if (!poll.allow_add_option) throw badRequest('Adding options is not allowed on this poll')
	const now = Date.now()
	if (isExpired(poll, now)) throw badRequest(POLL_ENDED)
	// The poll row lock orders concurrent adds, so the option limit holds.
	const locked = await findFeedPoll(tx, poll.community_id, poll.id, true)
	if (!locked) throw badRequest(POLL_ENDED)
	if (locked.option_ids.length >= MAX_POLL_OPTIONS)
		throw badRequest(`A poll has at most ${MAX_POLL_OPTIONS} options`)
	const inserted = await insertFeedOption(tx, poll.community_id, poll.id, text, userId, now)
	if (!inserted) throw badRequest(`Poll options must be distinct: "${text}" is already one`)
	const options = await findFeedOptions(tx, poll.community_id, poll.id)
	await updateWidget(tx, poll.community_id, poll.id, {
		metadata: widgetMetadata(rulesOf(locked.question, locked), options),
	})
	return inserted
}

/**
 * A vote: the choice is checked by the chat poll's rule (options of this poll, distinct,
 * the select rule), then the voter's ballot is upserted in one statement; without vote
 * change a second ballot is refused (400 "Poll already submitted").
 */
export async function voteFeedPoll(db: Db, poll: FeedPollRow, userId: number, ids: string[]) {
	const now = Date.now()
	if (isExpired(poll, now)) throw badRequest(POLL_ENDED)
	const optionIds = checkedChoice(poll, ids)
	const cast = await castFeedBallot(db, {
		communityId: poll.community_id,
		pollId: poll.id,
		userId,
		optionIds,
		allowChange: poll.allow_vote_change,
		now,
	})
	if (!cast) throw badRequest(ALREADY_SUBMITTED)
}

/**
 * Voters of the options `optionIds` (every option when empty; 404 for one not of this
 * poll): none for anonymous polls and while results are hidden from the viewer.
 */
export async function feedPollVoters(
	db: Db,
	poll: FeedPollRow,
	viewer: PollViewer,
	optionIds: string[],
	page: { pageSize: number; offset: number },
): Promise<{ votes: { id: string; users: string[] }[]; users: UserRow[] }> {
	const wanted = optionIds.length > 0 ? optionIds : poll.option_ids
	const known = new Set(poll.option_ids)
	if (wanted.some((id) => !known.has(id))) throw notFound('Poll option')
	const ballot = await feedBallotOf(db, poll.community_id, poll.id, viewer.userId)
	const shown = showsResults(poll, viewer, ballot !== null, Date.now())
	if (poll.is_anonymous || !shown)
		return { votes: wanted.map((id) => ({ id, users: [] })), users: [] }
	const rows = await feedVoters(db, poll.community_id, poll.id, wanted, page.pageSize, page.offset)
	const users = await findUsersByIds(db, poll.community_id, [
		...new Set(rows.flatMap((r) => r.user_ids)),
	])
	const uuidOf = new Map(users.map((u) => [u.id, u.uuid]))
	return {
		votes: rows.map((r) => ({
			id: r.option_id,
			users: r.user_ids.flatMap((id) => uuidOf.get(id) ?? []),
		})),
		users,
	}
}
