// Voting: the select rules, vote change, expiry, who sees counts (to_show_results),
// integer percentages, poll_answer_text, voters lists, adding options, and the races:
// one voter's concurrent submissions leave one ballot; 100 parallel voters count exactly.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { newPoll, pollAs, vote, votesOf } from './support'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser
let cid: TestUser
let roomId: string

beforeAll(async () => {
	community = await newCommunity('poll-voting')
	cm = await newUser(community, { role: 'cm' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
	cid = await newUser(community, { name: 'Cid' })
	roomId = (await newRoom(cm)).id
	for (const user of [ana, ben, cid]) await follow(user, roomId)
})

const optionIds = (poll: { polls: { id: string }[] }) => poll.polls.map((o) => o.id)

describe('submitting', () => {
	test('a vote counts, is_selected marks the voter’s choice, percentages are integer parts', async () => {
		const poll = await newPoll(cm, roomId, { poll_type: 2 })
		const [pizza, sushi] = optionIds(poll)
		expect((await vote(ana, poll.id, [pizza])).status).toBe(200)
		expect((await vote(ben, poll.id, [pizza])).status).toBe(200)
		expect((await vote(cid, poll.id, [sushi])).status).toBe(200)
		const seen = await pollAs(ana, roomId, poll.id)
		expect(votesOf(seen)).toEqual([2, 1, 0])
		expect(seen.polls.map((o: { percentage: number }) => o.percentage)).toEqual([66, 33, 0])
		expect(seen.polls.map((o: { is_selected: boolean }) => o.is_selected)).toEqual([
			true,
			false,
			false,
		])
		expect(seen.poll_answer_text).toBe('3 members voted on this poll')
	})

	test('the select rules: exactly, at_max, at_least', async () => {
		const four = [{ text: 'A' }, { text: 'B' }, { text: 'C' }, { text: 'D' }]
		const exactly = await newPoll(cm, roomId, {
			polls: four,
			multiple_select_state: 0,
			multiple_select_no: 2,
		})
		const [a, b, c] = optionIds(exactly)
		const one = await vote(ana, exactly.id, [a])
		expect(one.status).toBe(400)
		expect(one.body.error_message).toBe('Select exactly 2 options')
		expect((await vote(ana, exactly.id, [a, b, c])).status).toBe(400)
		expect((await vote(ana, exactly.id, [a, b])).status).toBe(200)

		const atMax = await newPoll(cm, roomId, {
			polls: four,
			multiple_select_state: 1,
			multiple_select_no: 2,
		})
		const m = optionIds(atMax)
		const many = await vote(ana, atMax.id, m.slice(0, 3))
		expect(many.body.error_message).toBe('Select at most 2 options')
		expect((await vote(ana, atMax.id, [m[0]])).status).toBe(200)

		const atLeast = await newPoll(cm, roomId, {
			polls: four,
			multiple_select_state: 2,
			multiple_select_no: 2,
		})
		const l = optionIds(atLeast)
		const few = await vote(ana, atLeast.id, [l[0]])
		expect(few.body.error_message).toBe('Select at least 2 options')
		expect((await vote(ana, atLeast.id, l)).status).toBe(200)
		const seen = await pollAs(cm, roomId, atLeast.id)
		expect(votesOf(seen)).toEqual([1, 1, 1, 1])
		// multi-select percentages are per distinct voter, so they sum past 100
		expect(seen.polls.map((o: { percentage: number }) => o.percentage)).toEqual([
			100, 100, 100, 100,
		])
	})

	test('empty, repeated, foreign and unknown options', async () => {
		const poll = await newPoll(cm, roomId)
		const other = await newPoll(cm, roomId)
		const [pizza] = optionIds(poll)
		expect((await vote(ana, poll.id, [])).body.error_message).toBe(
			'Choose at least one option in polls',
		)
		const twice = await vote(ana, poll.id, [pizza, pizza])
		expect(twice.status).toBe(400)
		expect(twice.body.error_message).toBe('An option can be chosen only once')
		const foreign = await vote(ana, poll.id, [optionIds(other)[0]])
		expect(foreign.status).toBe(404)
		expect((await vote(ana, poll.id, ['99999999'])).status).toBe(404)
		expect((await vote(ana, poll.id, ['x'])).status).toBe(404)
		expect((await vote(ana, '99999999', [pizza])).status).toBe(404)
		expect(votesOf(await pollAs(cm, roomId, poll.id))).toEqual([0, 0, 0])
		expect((await vote(ana, poll.id, [pizza])).status).toBe(200)
	})

	test('without allow_vote_change a second submission is refused; with it the ballot is replaced', async () => {
		const fixed = await newPoll(cm, roomId, { allow_vote_change: false })
		const [pizza, sushi] = optionIds(fixed)
		expect((await vote(ana, fixed.id, [pizza])).status).toBe(200)
		const again = await vote(ana, fixed.id, [sushi])
		expect(again.status).toBe(400)
		expect(again.body.error_message).toBe('Poll already submitted')
		expect(votesOf(await pollAs(cm, roomId, fixed.id))).toEqual([1, 0, 0])

		const changeable = await newPoll(cm, roomId, { allow_vote_change: true })
		const [p, s] = optionIds(changeable)
		expect((await vote(ana, changeable.id, [p])).status).toBe(200)
		expect((await vote(ana, changeable.id, [s])).status).toBe(200)
		expect(votesOf(await pollAs(cm, roomId, changeable.id))).toEqual([0, 1, 0])
	})

	test('an expired poll takes no votes and no options, and shows its results to everyone', async () => {
		const poll = await newPoll(cm, roomId, {
			poll_type: 1,
			allow_add_option: true,
			expiry_time: Date.now() + 1500,
		})
		const [pizza] = optionIds(poll)
		expect((await vote(ana, poll.id, [pizza])).status).toBe(200)
		expect((await pollAs(ben, roomId, poll.id)).to_show_results).toBe(false)
		await Bun.sleep(1600)
		const late = await vote(ben, poll.id, [pizza])
		expect(late.status).toBe(400)
		expect(late.body.error_message).toBe('Poll has been ended')
		const add = await api('POST', '/conversation/poll', {
			token: ben.token,
			body: { conversation_id: poll.id, poll: { text: 'Tacos' } },
		})
		expect(add.body.error_message).toBe('Poll has been ended')
		const seen = await pollAs(ben, roomId, poll.id)
		expect(seen.to_show_results).toBe(true)
		expect(votesOf(seen)).toEqual([1, 0, 0])
	})

	test('a deleted poll takes no more votes', async () => {
		const poll = await newPoll(cm, roomId, { poll_type: 2, allow_vote_change: true })
		const [pizza, sushi] = optionIds(poll)
		expect((await vote(ana, poll.id, [pizza])).status).toBe(200)
		const deleted = await api('DELETE', '/conversation', {
			token: cm.token,
			body: { conversation_ids: [poll.id] },
		})
		expect(deleted.status).toBe(200)
		expect((await vote(ana, poll.id, [sushi])).status).toBe(404)
		expect((await vote(ben, poll.id, [sushi])).status).toBe(404)
	})

	test('members without a seat may not vote', async () => {
		const outsider = await newUser(community)
		const poll = await newPoll(cm, roomId)
		const reply = await vote(outsider, poll.id, [optionIds(poll)[0]])
		expect(reply.status).toBe(403)
		await follow(outsider, roomId)
		expect((await vote(outsider, poll.id, [optionIds(poll)[0]])).status).toBe(200)
	})

	test('a member who may not see a secret room learns nothing of its polls: 404 whatever the choice', async () => {
		const secret = (await newRoom(cm, { is_secret: true })).id
		const poll = await newPoll(cm, secret)
		const [first, second] = optionIds(poll)
		for (const choice of [[first], [first, second], []]) {
			const reply = await vote(ana, poll.id, choice as string[])
			expect(reply.status).toBe(404)
		}
		// positive control: the CM, who sees the room, hears the rule
		const ruled = await vote(cm, poll.id, [first, second] as string[])
		expect(ruled.status).toBe(400)
		expect(ruled.body.error_message).toBe('Select exactly 1 option')
	})

	test('a CM votes without a seat; a voter who left the room may not vote', async () => {
		const room = (await newRoom(cm)).id
		const leaver = await newUser(community)
		await follow(leaver, room)
		const poll = await newPoll(cm, room, { allow_vote_change: true })
		expect((await vote(leaver, poll.id, [optionIds(poll)[0]])).status).toBe(200)
		await follow(leaver, room, false)
		expect((await vote(leaver, poll.id, [optionIds(poll)[1]])).status).toBe(403)
		const other = await newUser(community, { role: 'cm' })
		expect((await vote(other, poll.id, [optionIds(poll)[1]])).status).toBe(200)
		expect(votesOf(await pollAs(cm, room, poll.id))).toEqual([1, 1, 0])
	})

	test('an option added by another server process since the poll was last read can be chosen', async () => {
		const poll = await newPoll(cm, roomId, { allow_vote_change: true })
		expect((await vote(ana, poll.id, [optionIds(poll)[0]])).status).toBe(200)
		// another process adds an option: this process's copy of the poll does not know it
		const [added] = await sql`
			insert into poll_options (community_id, conversation_id, text, member_id, created_at)
			values (${community.communityId}, ${poll.id}, 'Tacos', ${cm.id}, ${Date.now()}) returning id::text`
		const reply = await vote(ben, poll.id, [added.id])
		expect(reply.status).toBe(200)
		const seen = await pollAs(cm, roomId, poll.id)
		expect(seen.polls.map((o: { text: string }) => o.text)).toEqual([
			'Pizza',
			'Sushi',
			'Salad',
			'Tacos',
		])
		expect(votesOf(seen)).toEqual([1, 0, 0, 1])
	})
})

describe('who sees results', () => {
	test('deferred: hidden from members until expiry (counts 0, voters empty), shown to creator and CMs', async () => {
		const poll = await newPoll(ana, roomId, { poll_type: 1 })
		const [pizza] = optionIds(poll)
		await vote(ben, poll.id, [pizza])
		await vote(cid, poll.id, [pizza])
		const member = await pollAs(ben, roomId, poll.id)
		expect(member.to_show_results).toBe(false)
		expect(votesOf(member)).toEqual([0, 0, 0])
		expect(member.polls[0].percentage).toBe(0)
		expect(member.polls[0].is_selected).toBe(true)
		const voters = await api(
			'GET',
			`/conversation/poll/users?conversation_id=${poll.id}&poll_id=${pizza}`,
			{
				token: ben.token,
			},
		)
		expect(voters.body.data).toEqual({ members: [], total_count: 0 })
		for (const viewer of [ana, cm]) {
			const seen = await pollAs(viewer, roomId, poll.id)
			expect(seen.to_show_results).toBe(true)
			expect(votesOf(seen)).toEqual([2, 0, 0])
			expect(seen.polls[0].percentage).toBe(100)
		}
	})

	test('instant: shown once the viewer voted; open: always', async () => {
		const instant = await newPoll(ana, roomId, { poll_type: 0 })
		await vote(cid, instant.id, [optionIds(instant)[1]])
		expect((await pollAs(ben, roomId, instant.id)).to_show_results).toBe(false)
		expect(votesOf(await pollAs(ben, roomId, instant.id))).toEqual([0, 0, 0])
		await vote(ben, instant.id, [optionIds(instant)[1]])
		const after = await pollAs(ben, roomId, instant.id)
		expect(after.to_show_results).toBe(true)
		expect(votesOf(after)).toEqual([0, 2, 0])
		const open = await newPoll(ana, roomId, { poll_type: 2 })
		await vote(cid, open.id, [optionIds(open)[2]])
		expect(votesOf(await pollAs(ben, roomId, open.id))).toEqual([0, 0, 1])
	})

	test('poll_answer_text counts distinct voters', async () => {
		const poll = await newPoll(cm, roomId, {
			poll_type: 2,
			multiple_select_state: 1,
			multiple_select_no: 3,
		})
		const ids = optionIds(poll)
		expect((await pollAs(ana, roomId, poll.id)).poll_answer_text).toBe('Be the first to vote')
		await vote(ana, poll.id, ids)
		expect((await pollAs(ana, roomId, poll.id)).poll_answer_text).toBe(
			'1 member voted on this poll',
		)
		await vote(ben, poll.id, [ids[0]])
		expect((await pollAs(ana, roomId, poll.id)).poll_answer_text).toBe(
			'2 members voted on this poll',
		)
	})
})

describe('voters', () => {
	test('lists the members who chose an option, paged; empty for anonymous polls', async () => {
		const poll = await newPoll(cm, roomId, { poll_type: 2 })
		const [pizza, sushi] = optionIds(poll)
		await vote(ana, poll.id, [pizza])
		await vote(ben, poll.id, [pizza])
		await vote(cid, poll.id, [sushi])
		const url = `/conversation/poll/users?conversation_id=${poll.id}&poll_id=${pizza}`
		const all = await api('GET', url, { token: cid.token })
		expect(all.status).toBe(200)
		expect(all.body.data.total_count).toBe(2)
		expect(all.body.data.members.map((m: { uuid: string }) => m.uuid).sort()).toEqual(
			[ana.uuid, ben.uuid].sort(),
		)
		expect(all.body.data.members[0]).toMatchObject({ state: 4 })
		const page2 = await api('GET', `${url}&page=2&page_size=1`, { token: cid.token })
		expect(page2.body.data.members.length).toBe(1)
		expect(page2.body.data.total_count).toBe(2)

		const anonymous = await newPoll(cm, roomId, { poll_type: 2, is_anonymous: true })
		await vote(ana, anonymous.id, [optionIds(anonymous)[0]])
		const hidden = await api(
			'GET',
			`/conversation/poll/users?conversation_id=${anonymous.id}&poll_id=${optionIds(anonymous)[0]}`,
			{ token: cm.token },
		)
		expect(hidden.body.data).toEqual({ members: [], total_count: 0 })
		expect(votesOf(await pollAs(cm, roomId, anonymous.id))).toEqual([1, 0, 0])
		const unknown = await api(
			'GET',
			`/conversation/poll/users?conversation_id=${poll.id}&poll_id=1`,
			{
				token: cm.token,
			},
		)
		expect(unknown.status).toBe(404)
	})
})

describe('adding options', () => {
	const add = (user: TestUser, conversationId: string, text: string) =>
		api('POST', '/conversation/poll', {
			token: user.token,
			body: { conversation_id: conversationId, poll: { text } },
		})

	test('only when allowed; distinct; at most 10; the adder is the option’s member', async () => {
		const closed = await newPoll(cm, roomId)
		const refused = await add(ana, closed.id, 'Tacos')
		expect(refused.status).toBe(400)
		expect(refused.body.error_message).toBe('Adding options is not allowed on this poll')

		const poll = await newPoll(cm, roomId, { allow_add_option: true, poll_type: 2 })
		// a vote first, so the poll's rules are already kept by the vote path
		expect((await vote(cid, poll.id, [optionIds(poll)[0]])).status).toBe(200)
		const reply = await add(ana, poll.id, 'Tacos')
		expect(reply.status).toBe(200)
		expect(reply.body.data.poll).toMatchObject({ text: 'Tacos', no_votes: 0, is_selected: false })
		expect(reply.body.data.poll.member.uuid).toBe(ana.uuid)
		expect((await add(ben, poll.id, ' tacos')).status).toBe(400)
		expect((await vote(ben, poll.id, [reply.body.data.poll.id])).status).toBe(200)
		const seen = await pollAs(cid, roomId, poll.id)
		expect(seen.polls.map((o: { text: string }) => o.text)).toEqual([
			'Pizza',
			'Sushi',
			'Salad',
			'Tacos',
		])
		expect(votesOf(seen)).toEqual([1, 0, 0, 1])

		const adds = await Promise.all(
			Array.from({ length: 8 }, (_, i) => add(cid, poll.id, `Extra ${i}`)),
		)
		expect(adds.filter((r) => r.status === 200).length).toBe(6)
		expect(
			adds
				.filter((r) => r.status === 400)
				.every((r) => r.body.error_message === 'A poll has at most 10 options'),
		).toBe(true)
		expect((await pollAs(cid, roomId, poll.id)).polls.length).toBe(10)
	})
})

describe('races', () => {
	test('one voter’s concurrent submissions leave exactly one ballot', async () => {
		const poll = await newPoll(cm, roomId, {
			poll_type: 2,
			allow_vote_change: true,
			multiple_select_state: 1,
			multiple_select_no: 2,
		})
		const [a, b, c] = optionIds(poll)
		const choices = [[a], [b], [c], [a, b], [b, c], [a, c]]
		const replies = await Promise.all(
			Array.from({ length: 30 }, (_, i) => vote(ana, poll.id, choices[i % choices.length])),
		)
		expect(replies.every((r) => r.status === 200)).toBe(true)
		const seen = await pollAs(ana, roomId, poll.id)
		expect(seen.poll_answer_text).toBe('1 member voted on this poll')
		const chosen = seen.polls
			.filter((o: { is_selected: boolean }) => o.is_selected)
			.map((o: { id: string }) => o.id)
		expect(choices.map((x) => x.join())).toContain(chosen.join())
		expect(votesOf(seen).reduce((x, y) => x + y, 0)).toBe(chosen.length)
	})

	test('without vote change, concurrent first submissions: one succeeds, the rest are refused', async () => {
		const poll = await newPoll(cm, roomId, { poll_type: 2, allow_vote_change: false })
		const ids = optionIds(poll)
		const replies = await Promise.all(
			Array.from({ length: 12 }, (_, i) => vote(ben, poll.id, [ids[i % 3]])),
		)
		expect(replies.filter((r) => r.status === 200).length).toBe(1)
		expect(replies.filter((r) => r.body.error_message === 'Poll already submitted').length).toBe(11)
		expect(votesOf(await pollAs(ben, roomId, poll.id)).reduce((x, y) => x + y, 0)).toBe(1)
	})

	test('100 parallel voters: totals are exact', async () => {
		const voters: TestUser[] = []
		for (let i = 0; i < 100; i++) {
			voters.push(await newUser(community))
			await follow(voters[i], roomId)
		}
		const poll = await newPoll(cm, roomId, { poll_type: 2 })
		const ids = optionIds(poll)
		const replies = await Promise.all(voters.map((v, i) => vote(v, poll.id, [ids[i % 3]])))
		expect(replies.every((r) => r.status === 200)).toBe(true)
		const seen = await pollAs(cm, roomId, poll.id)
		expect(votesOf(seen)).toEqual([34, 33, 33])
		expect(seen.poll_answer_text).toBe('100 members voted on this poll')
	}, 60_000)
})
