// SQL of feed polls (the poll of a post, migration 0095): their rules, options and
// ballots, every statement keyed by community. The same statements as the chat poll's
// (repo.ts) on the feed tables: one upserted ballot per voter, tallies grouped from the
// ballots when read.
import type { Db } from '../../lib/db'
import type { PollDraft } from './model'
import type { Tally } from './repo'

export interface FeedPollRow {
	community_id: number
	id: string
	post_id: string
	creator_id: number
	question: string
	poll_type: PollDraft['poll_type']
	multiple_select_state: PollDraft['multiple_select_state']
	multiple_select_no: number
	is_anonymous: boolean
	allow_add_option: boolean
	allow_vote_change: boolean
	expiry_time: number | null
	created_at: number
	option_ids: string[]
}

export interface FeedOptionRow {
	id: string
	text: string
	member_id: number
}

export interface FeedPollKeys {
	communityId: number
	pollId: string
	postId: string
	creatorId: number
}

export async function insertFeedPoll(
	db: Db,
	keys: FeedPollKeys,
	question: string,
	draft: PollDraft,
	now: number,
): Promise<FeedOptionRow[]> {
	await db`
		insert into feed_polls (community_id, id, post_id, creator_id, question, poll_type,
			multiple_select_state, multiple_select_no, is_anonymous, allow_add_option,
			allow_vote_change, expiry_time, created_at)
		values (${keys.communityId}, ${keys.pollId}, ${keys.postId}, ${keys.creatorId}, ${question},
			${draft.poll_type}, ${draft.multiple_select_state}, ${draft.multiple_select_no},
			${draft.is_anonymous}, ${draft.allow_add_option}, ${draft.allow_vote_change},
			${draft.expiry_time}, ${now})`
	return db<FeedOptionRow[]>`
		insert into feed_poll_options (community_id, poll_id, text, member_id, created_at)
		select ${keys.communityId}, ${keys.pollId}, text, ${keys.creatorId}, ${now}
		from unnest(${draft.options}::text[]) with ordinality as o(text, n) order by n
		returning id::text, text, member_id::float8 as member_id`
}

/** The poll with its option ids (in the order added); null when the community has none of that id. */
export async function findFeedPoll(
	db: Db,
	communityId: number,
	pollId: string,
	lock = false,
): Promise<FeedPollRow | null> {
	const [row] = await db<FeedPollRow[]>`
		select community_id, id, post_id, creator_id::float8 as creator_id, question, poll_type, multiple_select_state,
			multiple_select_no, is_anonymous, allow_add_option, allow_vote_change,
			expiry_time::float8, created_at::float8,
			array(select o.id::text from feed_poll_options o
				where o.community_id = ${communityId} and o.poll_id = p.id order by o.id) as option_ids
		from feed_polls p
		where community_id = ${communityId} and id = ${pollId}
		${lock ? db`for update` : db``}`
	return row ?? null
}

/** The polls among `ids` (a post's widget ids: most are not polls). */
export async function findFeedPolls(
	db: Db,
	communityId: number,
	ids: string[],
): Promise<FeedPollRow[]> {
	if (ids.length === 0) return []
	return db<FeedPollRow[]>`
		select community_id, id, post_id, creator_id::float8 as creator_id, question, poll_type, multiple_select_state,
			multiple_select_no, is_anonymous, allow_add_option, allow_vote_change,
			expiry_time::float8, created_at::float8,
			array(select o.id::text from feed_poll_options o
				where o.community_id = ${communityId} and o.poll_id = p.id order by o.id) as option_ids
		from feed_polls p
		where community_id = ${communityId} and id = any(${ids}::text[])`
}

export function findFeedOptions(db: Db, communityId: number, pollId: string) {
	return db<FeedOptionRow[]>`
		select id::text, text, member_id::float8 as member_id from feed_poll_options
		where community_id = ${communityId} and poll_id = ${pollId} order by feed_poll_options.id`
}

/** Inserts an option; null when an equal one (case-insensitive) is already there. */
export async function insertFeedOption(
	db: Db,
	communityId: number,
	pollId: string,
	text: string,
	memberId: number,
	now: number,
): Promise<FeedOptionRow | null> {
	const [row] = await db<FeedOptionRow[]>`
		insert into feed_poll_options (community_id, poll_id, text, member_id, created_at)
		values (${communityId}, ${pollId}, ${text}, ${memberId}, ${now})
		on conflict do nothing
		returning id::text, text, member_id::float8 as member_id`
	return row ?? null
}

/** Votes per option and the distinct voters (option_id null), in one pass over the ballots. */
export function feedTallies(db: Db, communityId: number, pollId: string) {
	return db<Omit<Tally, 'conversation_id'>[]>`
		select o.option_id::text, count(distinct b.user_id)::int as votes
		from feed_poll_ballots b cross join lateral unnest(b.option_ids) as o(option_id)
		where b.community_id = ${communityId} and b.poll_id = ${pollId}
		group by grouping sets ((o.option_id), ())`
}

export async function feedBallotOf(
	db: Db,
	communityId: number,
	pollId: string,
	userId: number,
): Promise<string[] | null> {
	const [row] = await db<{ option_ids: string[] }[]>`
		select option_ids::text[] as option_ids from feed_poll_ballots
		where community_id = ${communityId} and poll_id = ${pollId} and user_id = ${userId}`
	return row?.option_ids ?? null
}

/**
 * The voter's ballot as ONE upsert: the key (community, poll, voter) keeps exactly one
 * ballot whatever arrives concurrently; without vote change an existing ballot stays
 * and the answer is false.
 */
export async function castFeedBallot(
	db: Db,
	ballot: {
		communityId: number
		pollId: string
		userId: number
		optionIds: string[]
		allowChange: boolean
		now: number
	},
): Promise<boolean> {
	const onConflict = ballot.allowChange
		? db`do update set option_ids = excluded.option_ids, submitted_at = excluded.submitted_at`
		: db`do nothing`
	const rows = await db`
		insert into feed_poll_ballots (community_id, poll_id, user_id, option_ids, submitted_at)
		values (${ballot.communityId}, ${ballot.pollId}, ${ballot.userId},
			${ballot.optionIds}::bigint[], ${ballot.now})
		on conflict (community_id, poll_id, user_id) ${onConflict}
		returning 1`
	return rows.length > 0
}

/** Voters of each option among `optionIds` (latest ballot first, `limit` each from `offset`). */
export function feedVoters(
	db: Db,
	communityId: number,
	pollId: string,
	optionIds: string[],
	limit: number,
	offset: number,
) {
	return db<{ option_id: string; user_ids: number[] }[]>`
		select o.option_id::text, array(
			select b.user_id::float8 from feed_poll_ballots b
			where b.community_id = ${communityId} and b.poll_id = ${pollId}
				and b.option_ids @> array[o.option_id]
			order by b.submitted_at desc, b.user_id limit ${limit} offset ${offset}) as user_ids
		from unnest(${optionIds}::bigint[]) as o(option_id)`
}
