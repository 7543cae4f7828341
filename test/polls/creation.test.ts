// Poll creation through POST /conversation (state 10): the chat_poll configuration's
// defaults and override semantics, and each rule a poll body can break.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { api } from '../support/http'
import { createPoll, inAnHour, newPoll } from './support'

let cm: TestUser
let ana: TestUser
let roomId: string

beforeAll(async () => {
	const community = await newCommunity('poll-creation')
	cm = await newUser(community, { role: 'cm' })
	ana = await newUser(community)
	roomId = (await newRoom(cm)).id
	await follow(ana, roomId)
})

const configure = (token: string, value: Record<string, unknown>) =>
	api('PATCH', '/community/configurations', { token, body: { type: 'chat_poll', value } })

describe('poll creation', () => {
	test('a poll conversation carries its rules, options with ids as decimal strings, expiry in ms', async () => {
		const expiry = inAnHour()
		const poll = await newPoll(ana, roomId, { expiry_time: expiry })
		expect(poll).toMatchObject({
			state: 10,
			answer: 'Lunch?',
			poll_type: 0,
			multiple_select_state: 0,
			multiple_select_no: 1,
			is_anonymous: false,
			allow_add_option: false,
			allow_vote_change: false,
			expiry_time: expiry * 1000,
			to_show_results: true,
			poll_answer_text: 'Be the first to vote',
		})
		expect(poll.polls.map((o: { text: string }) => o.text)).toEqual(['Pizza', 'Sushi', 'Salad'])
		for (const option of poll.polls) {
			expect(option.id).toMatch(/^[1-9]\d*$/)
			expect(option).toMatchObject({ is_selected: false, no_votes: 0, percentage: 0 })
			expect(option.member).toMatchObject({ uuid: ana.uuid, id: String(ana.id), state: 4 })
		}
	})

	test('expiry_time in milliseconds is read as milliseconds; no_poll_expiry answers null', async () => {
		const ms = Date.now() + 3_600_000
		expect((await newPoll(ana, roomId, { expiry_time: ms })).expiry_time).toBe(ms)
		const endless = await newPoll(ana, roomId, { expiry_time: undefined, no_poll_expiry: true })
		expect(endless.expiry_time).toBeNull()
	})

	test('allow_vote_change defaults to false for instant polls and true for the others', async () => {
		expect((await newPoll(ana, roomId, { poll_type: 0 })).allow_vote_change).toBe(false)
		expect((await newPoll(ana, roomId, { poll_type: 1 })).allow_vote_change).toBe(true)
		expect((await newPoll(ana, roomId, { poll_type: 2 })).allow_vote_change).toBe(true)
		expect((await newPoll(ana, roomId, { poll_type: 'open' })).poll_type).toBe(2)
		expect(
			(await newPoll(ana, roomId, { poll_type: 0, allow_vote_change: true })).allow_vote_change,
		).toBe(true)
	})

	test('each broken rule is a 400 that names it, and nothing is posted', async () => {
		const cases: [Record<string, unknown>, string | RegExp][] = [
			[{ polls: [{ text: 'Only' }] }, 'A poll needs 2 to 10 options in polls (got 1)'],
			[
				{ polls: Array.from({ length: 11 }, (_, i) => ({ text: `O${i}` })) },
				'A poll needs 2 to 10 options in polls (got 11)',
			],
			[{ polls: [{ text: 'Tea' }, { text: ' tea ' }] }, /must be distinct/],
			[{ polls: [{ text: 'Tea' }, { text: '  ' }] }, 'Poll options cannot be empty'],
			[
				{ poll_type: 1, no_poll_expiry: true },
				'You cannot set no_poll_expiry to true for deferred polls.',
			],
			[{ expiry_time: undefined }, 'expiry_time is required unless no_poll_expiry is true'],
			[{ expiry_time: Math.floor(Date.now() / 1000) - 60 }, 'expiry_time must be in the future'],
			[
				{ multiple_select_no: 4 },
				'multiple_select_no must be between 1 and the number of options (3)',
			],
			[{ multiple_select_no: 0 }, /multiple_select_no/],
			[{ poll_type: 5 }, /^poll_type must be one of 0 \(instant\), 1 \(deferred\), 2 \(open\)/],
			[{ multiple_select_state: 'most' }, /^multiple_select_state must be one of/],
			[{ text: ' ' }, 'A poll needs its question in text'],
		]
		const before = await api('GET', `/conversation?chatroom_id=${roomId}&paginate_by=100`, {
			token: ana.token,
		})
		for (const [fields, message] of cases) {
			const reply = await createPoll(ana, roomId, fields)
			expect(reply.status).toBe(400)
			if (typeof message === 'string') expect(reply.body.error_message).toBe(message)
			else expect(reply.body.error_message).toMatch(message)
		}
		const after = await api('GET', `/conversation?chatroom_id=${roomId}&paginate_by=100`, {
			token: ana.token,
		})
		expect(after.body.data.conversations.length).toBe(before.body.data.conversations.length)
		// positive control: the same body without the fault is accepted
		expect((await createPoll(ana, roomId)).status).toBe(200)
	})

	test('configuration defaults fill what the request leaves out', async () => {
		const community = await newCommunity('poll-defaults')
		const owner = await newUser(community, { role: 'cm' })
		const room = (await newRoom(owner)).id
		await configure(owner.token, {
			poll_type: 'open',
			is_anonymous: true,
			multiple_select_state: 'at_max',
			multiple_select_no: 2,
		})
		const poll = await newPoll(owner, room)
		expect(poll).toMatchObject({
			poll_type: 2,
			is_anonymous: true,
			multiple_select_state: 1,
			multiple_select_no: 2,
			allow_vote_change: true,
		})
		// allow_override true (default): the request wins
		expect((await newPoll(owner, room, { poll_type: 0, is_anonymous: false })).is_anonymous).toBe(
			false,
		)
	})

	test('with allow_override false the configuration replaces the request values', async () => {
		const community = await newCommunity('poll-no-override')
		const owner = await newUser(community, { role: 'cm' })
		const room = (await newRoom(owner)).id
		await configure(owner.token, {
			allow_override: false,
			poll_type: 'deferred',
			allow_add_option: true,
		})
		const poll = await newPoll(owner, room, {
			poll_type: 2,
			allow_add_option: false,
			is_anonymous: true,
			multiple_select_state: 2,
			multiple_select_no: 2,
			allow_vote_change: false,
		})
		expect(poll).toMatchObject({
			poll_type: 1,
			allow_add_option: true,
			is_anonymous: false,
			multiple_select_state: 0,
			multiple_select_no: 1,
			allow_vote_change: true,
		})
		// the configuration's no_poll_expiry (false) replaces the request's true: expiry required
		const noExpiry = await createPoll(owner, room, { no_poll_expiry: true, expiry_time: undefined })
		expect(noExpiry.status).toBe(400)
		expect(noExpiry.body.error_message).toBe(
			'expiry_time is required unless no_poll_expiry is true',
		)
	})

	test('only seated members post polls', async () => {
		const community = await newCommunity('poll-seat')
		const owner = await newUser(community, { role: 'cm' })
		const stranger = await newUser(community)
		const room = (await newRoom(owner)).id
		expect((await createPoll(stranger, room)).status).toBe(403)
		await follow(stranger, room)
		expect((await createPoll(stranger, room)).status).toBe(200)
	})
})
