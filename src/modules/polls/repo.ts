// SQL of polls: their rules, options, and ballots (one row per voter and poll).
import type { Db } from '../../lib/db'
import type { OptionRow, PollDraft, PollRow } from './model'

// Poll, option and conversation ids come back as text (decimal strings on the wire); user
// ids (bigint, held as numbers) and epoch ms as float8 numbers.
const pollColumns = (db: Db) => db`
	polls.conversation_id::text, community_id, chatroom_id::text, creator_id::float8 as creator_id, poll_type,
	multiple_select_state, multiple_select_no, is_anonymous, allow_add_option,
	allow_vote_change, expiry_time::float8, created_at::float8`

export interface PollKeys {
	conversationId: string
	chatroomId: string
	communityId: number
	creatorId: number
}

export async function insertPoll(db: Db, keys: PollKeys, draft: PollDraft, now: number) {
	await db`
		insert into polls (conversation_id, community_id, chatroom_id, creator_id, poll_type,
			multiple_select_state, multiple_select_no, is_anonymous, allow_add_option,
			allow_vote_change, expiry_time, created_at)
		values (${keys.conversationId}, ${keys.communityId}, ${keys.chatroomId}, ${keys.creatorId},
			${draft.poll_type}, ${draft.multiple_select_state}, ${draft.multiple_select_no},
			${draft.is_anonymous}, ${draft.allow_add_option}, ${draft.allow_vote_change},
			${draft.expiry_time}, ${now})`
	await db`
		insert into poll_options (community_id, conversation_id, text, member_id, created_at)
		select ${keys.communityId}, ${keys.conversationId}, text, ${keys.creatorId}, ${now}
		from unnest(${draft.options}::text[]) with ordinality as o(text, n) order by n`
}

/** The poll of a live (not deleted) conversation of the community, with its option ids. */
export async function findPoll(
	db: Db,
	communityId: number,
	conversationId: string,
): Promise<(PollRow & { option_ids: string[] }) | null> {
	const [row] = await db<(PollRow & { option_ids: string[] })[]>`
		select ${pollColumns(db)},
			array(select o.id::text from poll_options o
				where o.community_id = ${communityId} and o.conversation_id = polls.conversation_id
				order by o.id) as option_ids
		from polls
		where community_id = ${communityId} and conversation_id = ${conversationId}
			and exists (select 1 from conversations c
				where c.community_id = ${communityId} and c.id = ${conversationId} and c.deleted_by is null)`
	return row ?? null
}

export async function lockPoll(db: Db, communityId: number, conversationId: string): Promise<void> {
	await db`
		select 1 from polls where community_id = ${communityId} and conversation_id = ${conversationId}
		for update`
}

export async function findPolls(
	db: Db,
	communityId: number,
	conversationIds: string[],
): Promise<PollRow[]> {
	if (conversationIds.length === 0) return []
	return db<PollRow[]>`
		select ${pollColumns(db)} from polls
		where community_id = ${communityId} and conversation_id = any(${conversationIds}::bigint[])`
}

/** Options in the order they were added (by the numeric id: `id` alone would sort the text). */
export async function findOptions(
	db: Db,
	communityId: number,
	conversationIds: string[],
): Promise<OptionRow[]> {
	if (conversationIds.length === 0) return []
	return db<OptionRow[]>`
		select id::text, conversation_id::text, text, member_id::float8 as member_id, created_at::float8
		from poll_options
		where community_id = ${communityId} and conversation_id = any(${conversationIds}::bigint[])
		order by poll_options.id`
}

export async function countOptions(
	db: Db,
	communityId: number,
	conversationId: string,
): Promise<number> {
	const [row] = await db`
		select count(*)::int as n from poll_options
		where community_id = ${communityId} and conversation_id = ${conversationId}`
	return row.n
}

/** Inserts an option; null when an equal one (case-insensitive) is already there. */
export async function insertOption(
	db: Db,
	communityId: number,
	conversationId: string,
	text: string,
	memberId: number,
	now: number,
): Promise<OptionRow | null> {
	const [row] = await db<OptionRow[]>`
		insert into poll_options (community_id, conversation_id, text, member_id, created_at)
		values (${communityId}, ${conversationId}, ${text}, ${memberId}, ${now})
		on conflict do nothing
		returning id::text, conversation_id::text, text, member_id::float8 as member_id, created_at::float8`
	return row ?? null
}

export interface Tally {
	conversation_id: string
	/** null on the poll's own row: its count of distinct voters */
	option_id: string | null
	votes: number
}

/** Votes per option and distinct voters per poll, in one pass over the ballots. */
export async function tallies(
	db: Db,
	communityId: number,
	conversationIds: string[],
): Promise<Tally[]> {
	if (conversationIds.length === 0) return []
	return db<Tally[]>`
		select b.conversation_id::text, o.option_id::text, count(distinct b.user_id)::int as votes
		from poll_ballots b cross join lateral unnest(b.option_ids) as o(option_id)
		where b.community_id = ${communityId} and b.conversation_id = any(${conversationIds}::bigint[])
		group by grouping sets ((b.conversation_id, o.option_id), (b.conversation_id))`
}

export async function ballotsOf(
	db: Db,
	communityId: number,
	userId: number,
	conversationIds: string[],
): Promise<{ conversation_id: string; option_ids: string[] }[]> {
	if (conversationIds.length === 0) return []
	return db`
		select conversation_id::text, option_ids::text[] as option_ids from poll_ballots
		where community_id = ${communityId} and user_id = ${userId}
			and conversation_id = any(${conversationIds}::bigint[])` as never
}

export interface Ballot {
	conversationId: string
	communityId: number
	userId: number
	/** a CM votes without a seat */
	isCm: boolean
	optionIds: string[]
	allowChange: boolean
	now: number
}

/** What one submission found: the poll (live, in a live room), the voter's seat, the ballot written. */
export interface Cast {
	found: boolean
	seated: boolean
	cast: boolean
}

/**
 * A vote as ONE statement: the poll is checked live (conversation not deleted, room
 * not deleted, same community), the voter's seat read, and the ballot upserted only
 * when both hold. The primary key (poll, voter) makes the upsert race-free: concurrent
 * submissions by one voter leave exactly one ballot; without vote change an existing
 * ballot stays and `cast` is false. Counts are not kept here: they are grouped from the
 * ballots when read (tallies), so 64 voters of one poll never queue on a counter row.
 */
export async function castBallot(db: Db, ballot: Ballot): Promise<Cast> {
	const onConflict = ballot.allowChange
		? db`do update set option_ids = excluded.option_ids, submitted_at = excluded.submitted_at`
		: db`do nothing`
	const [row] = await db<{ seated: boolean; cast: boolean }[]>`
		with target as (
			select p.conversation_id, ${ballot.isCm} or exists (
				select 1 from chatroom_participants s
				where s.community_id = ${ballot.communityId} and s.chatroom_id = p.chatroom_id
					and s.user_id = ${ballot.userId}) as seated
			from polls p
			join conversations c on c.community_id = p.community_id and c.id = p.conversation_id
				and c.deleted_by is null
			join chatrooms r on r.community_id = p.community_id and r.id = p.chatroom_id
				and not r.is_deleted
			where p.conversation_id = ${ballot.conversationId} and p.community_id = ${ballot.communityId}
		), written as (
			insert into poll_ballots (community_id, conversation_id, user_id, option_ids, submitted_at)
			select ${ballot.communityId}, conversation_id, ${ballot.userId}, ${ballot.optionIds}::bigint[], ${ballot.now}
			from target where seated
			on conflict (community_id, conversation_id, user_id) ${onConflict}
			returning 1
		)
		select seated, exists (select 1 from written) as cast from target`
	return row
		? { found: true, seated: row.seated, cast: row.cast }
		: { found: false, seated: false, cast: false }
}

/** Voters of one option, latest ballot first, with their total. */
export async function votersOf(
	db: Db,
	communityId: number,
	conversationId: string,
	optionId: string,
	limit: number,
	offset: number,
): Promise<{ userIds: number[]; total: number }> {
	const [rows, [count]] = await Promise.all([
		db<{ user_id: number }[]>`
			select user_id::float8 as user_id from poll_ballots
			where community_id = ${communityId} and conversation_id = ${conversationId} and option_ids @> array[${optionId}::bigint]
			order by submitted_at desc, user_id limit ${limit} offset ${offset}`,
		db<{ n: number }[]>`
			select count(*)::int as n from poll_ballots
			where community_id = ${communityId} and conversation_id = ${conversationId} and option_ids @> array[${optionId}::bigint]`,
	])
	return { userIds: rows.map((r) => r.user_id), total: count.n }
}
