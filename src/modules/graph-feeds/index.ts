// GET /feed/connection (fan-out on write) and GET /feed/personalised (ranked), served
// as pre-serialized pages like the universal feed.
import { Elysia } from 'elysia'
import { authPlugin } from '../auth/plugin'
import { okJson } from '../../lib/raw-json'
import { ConnectionFeedQuery, PersonalisedQuery } from './model'
import { connectionFeedJson, personalisedFeedJson } from './service'

const tags = ['feeds']

export const graphFeedsModule = new Elysia({ name: 'graph-feeds' })
	.use(authPlugin)
	.get(
		'/feed/connection',
		async ({ session, query }) =>
			okJson(await connectionFeedJson(session, query.page ?? 1, query.page_size ?? 20)),
		{
			auth: 'member',
			query: ConnectionFeedQuery,
			detail: {
				summary: "Posts of the caller's connections, newest first (needs user_connection)",
				tags,
			},
		},
	)
	.get(
		'/feed/personalised',
		async ({ session, query }) =>
			okJson(
				await personalisedFeedJson(session, {
					page: query.page ?? 1,
					pageSize: query.page_size ?? 20,
					reorder: query.should_reorder ?? false,
					recompute: query.should_recompute ?? false,
					topics: query.topics,
				}),
			),
		{
			auth: 'member',
			query: PersonalisedQuery,
			detail: { summary: 'The ranked feed of the caller', tags },
		},
	)
