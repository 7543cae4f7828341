// GET|PATCH /community/configurations: the chat_poll configuration, its defaults,
// merge-on-patch semantics and validation.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let member: TestUser

beforeAll(async () => {
	community = await newCommunity('poll-config')
	cm = await newUser(community, { role: 'cm' })
	member = await newUser(community)
})

const read = async (token = member.token) => {
	const reply = await api('GET', '/community/configurations?configuration_types=chat_poll', {
		token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data.community_configurations[0]
}

const patch = (value: unknown, token = cm.token) =>
	api('PATCH', '/community/configurations', { token, body: { type: 'chat_poll', value } })

describe('chat_poll configuration', () => {
	test('defaults: every field of the spec table, allow_vote_change false for instant polls', async () => {
		const configuration = await read()
		expect(configuration.type).toBe('chat_poll')
		expect(typeof configuration.description).toBe('string')
		expect(configuration.value).toEqual({
			allow_override: true,
			poll_type: 'instant',
			no_poll_expiry: false,
			allow_vote_change: false,
			multiple_select_state: 'exactly',
			multiple_select_no: 1,
			is_anonymous: false,
			allow_add_option: false,
		})
	})

	test('a patch merges: absent fields keep their value; allow_vote_change follows poll_type until set', async () => {
		const fresh = await newCommunity('poll-config-merge')
		const owner = await newUser(fresh, { role: 'cm' })
		const first = await patch({ poll_type: 'open', is_anonymous: true }, owner.token)
		expect(first.status).toBe(200)
		expect(first.body.data.community_configurations[0].value).toMatchObject({
			poll_type: 'open',
			is_anonymous: true,
			allow_vote_change: true,
		})
		await patch({ multiple_select_state: 'at_max', multiple_select_no: 3 }, owner.token)
		const after = await read(owner.token)
		expect(after.value).toMatchObject({
			poll_type: 'open',
			is_anonymous: true,
			multiple_select_state: 'at_max',
			multiple_select_no: 3,
			allow_vote_change: true,
		})
		await patch({ allow_vote_change: false, poll_type: 'deferred' }, owner.token)
		expect((await read(owner.token)).value.allow_vote_change).toBe(false)
	})

	test('no_poll_expiry with deferred is refused, also when the merge makes the pair', async () => {
		const fresh = await newCommunity('poll-config-deferred')
		const owner = await newUser(fresh, { role: 'cm' })
		const message = 'You cannot set no_poll_expiry to true for deferred polls.'
		const both = await patch({ poll_type: 'deferred', no_poll_expiry: true }, owner.token)
		expect(both.status).toBe(400)
		expect(both.body.error_message).toBe(message)
		// positive control: each alone is fine
		expect((await patch({ no_poll_expiry: true }, owner.token)).status).toBe(200)
		const merged = await patch({ poll_type: 'deferred' }, owner.token)
		expect(merged.status).toBe(400)
		expect(merged.body.error_message).toBe(message)
		expect((await read(owner.token)).value).toMatchObject({
			poll_type: 'instant',
			no_poll_expiry: true,
		})
	})

	test('each field is type-checked with a message naming it; nothing is stored', async () => {
		const cases: [Record<string, unknown>, string][] = [
			[{ allow_override: 'no' }, 'value.allow_override must be true or false'],
			[{ poll_type: 'later' }, 'value.poll_type must be one of instant, deferred, open'],
			[
				{ multiple_select_state: 2 },
				'value.multiple_select_state must be one of exactly, at_max, at_least',
			],
			[{ multiple_select_no: 0 }, 'value.multiple_select_no must be an integer from 1 to 10'],
			[{ multiple_select_no: 1.5 }, 'value.multiple_select_no must be an integer from 1 to 10'],
			[{ is_anonymous: null }, 'value.is_anonymous must be true or false'],
		]
		for (const [value, message] of cases) {
			const reply = await patch({ allow_add_option: true, ...value })
			expect(reply.status).toBe(400)
			expect(reply.body).toEqual({ success: false, error_message: message })
		}
		expect((await read()).value.allow_add_option).toBe(false)
		// positive control: the same field alone is stored
		expect((await patch({ allow_add_option: true })).status).toBe(200)
		expect((await read()).value.allow_add_option).toBe(true)
		const notObject = await patch([true])
		expect(notObject.status).toBe(400)
		const unknownType = await api('PATCH', '/community/configurations', {
			token: cm.token,
			body: { type: 'chat_pol', value: {} },
		})
		expect(unknownType.status).toBe(400)
		expect(unknownType.body.error_message).toContain('chat_pol')
	})

	test('members read but may not change it; the owner-level message is used', async () => {
		const reply = await patch({ allow_add_option: true }, member.token)
		expect(reply.status).toBe(403)
		expect(reply.body.error_message).toBe('You are not CM/Owner of this community')
		expect((await api('GET', '/community/configurations', {})).status).toBe(401)
	})

	test('configuration_types: absent lists every type; unknown is 400', async () => {
		const all = await api('GET', '/community/configurations', { token: member.token })
		expect(all.body.data.community_configurations.map((c: { type: string }) => c.type)).toEqual([
			'chat_poll',
		])
		const unknown = await api('GET', '/community/configurations?configuration_types=feed', {
			token: member.token,
		})
		expect(unknown.status).toBe(400)
		expect(unknown.body.error_message).toContain('Unknown configuration type: feed')
	})
})
