// feed-js PollClient routes (DESIGN §19): PUT /poll/:poll_id (add an option),
// PUT /poll/:poll_id/vote, GET /poll/:poll_id/vote. The poll is a post's attachment of
// type "poll" (posts/attachments.ts); its rules are the chat poll's (modules/polls).
import { Elysia } from 'elysia'
import { ok } from '../../../lib/envelope'
import { authPlugin } from '../../auth/plugin'
import { AddOptionBody, PollParams, VoteBody, VotersQuery } from './model'
import { addPollOption, getPollVotes, submitPollVote } from './service'

const tags = ['polls']

export const feedPollsModule = new Elysia({ name: 'feed-polls' })
	.use(authPlugin)
	.put(
		'/poll/:poll_id',
		async ({ session, params, body }) =>
			ok(await addPollOption(session, params.poll_id, body.text)),
		{
			auth: 'member',
			params: PollParams,
			body: AddOptionBody,
			detail: { summary: 'Add an option to a feed poll that allows it, before expiry', tags },
		},
	)
	.put(
		'/poll/:poll_id/vote',
		async ({ session, params, body }) =>
			ok(await submitPollVote(session, params.poll_id, body.votes)),
		{
			auth: 'member',
			params: PollParams,
			body: VoteBody,
			detail: { summary: 'Vote in a feed poll: one ballot per member, race-free', tags },
		},
	)
	.get(
		'/poll/:poll_id/vote',
		async ({ session, params, query }) => ok(await getPollVotes(session, params.poll_id, query)),
		{
			auth: 'member',
			params: PollParams,
			query: VotersQuery,
			detail: {
				summary: 'Voters of a feed poll’s options (none for anonymous polls or hidden results)',
				tags,
			},
		},
	)
