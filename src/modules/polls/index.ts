// Poll routes (DESIGN §8): add an option, submit a vote, list an option's voters, and
// the chat_poll configuration. Polls themselves are created by POST /conversation
// (conversations module) through preparePoll/savePoll.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { configurationsModule } from './configuration'
import { AddOptionBody, SubmitBody, VotersQuery } from './model'
import { addOption, listVoters, submitVote } from './service'

const tags = ['polls']

export const pollsModule = new Elysia({ name: 'polls' })
	.use(authPlugin)
	.use(configurationsModule)
	.post(
		'/conversation/poll',
		async ({ session, body }) => ok(await addOption(session, body.conversation_id, body.poll.text)),
		{
			auth: 'member',
			body: AddOptionBody,
			detail: { summary: 'Add an option to a poll that allows it, before expiry', tags },
		},
	)
	.post(
		'/conversation/poll/submit',
		async ({ session, body }) => {
			await submitVote(session, body.conversation_id, body.polls)
			return { success: true, error_message: null }
		},
		{
			auth: 'member',
			body: SubmitBody,
			detail: { summary: 'Vote: replaces the voter’s ballot atomically when allowed', tags },
		},
	)
	.get(
		'/conversation/poll/users',
		async ({ session, query }) => ok(await listVoters(session, query)),
		{
			auth: 'member',
			query: VotersQuery,
			detail: {
				summary: 'Voters of one option (empty for anonymous polls or hidden results)',
				tags,
			},
		},
	)
