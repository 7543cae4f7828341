// The four feed routes, all served from Redis as pre-serialized pages:
// GET /feed/universal and its alias for topics GET /feed/group?topic_ids= (kept for
// client compatibility), GET /feed/connection (fan-out on write) and
// GET /feed/personalised (ranked).
import { Elysia } from 'elysia'
import { paging } from '../../lib/paging'
import { okJson } from '../../lib/raw-json'
import { authPlugin } from '../auth/plugin'
import { viewerOf } from '../auth/session'
import { ConnectionFeedQuery, FeedQuery, PersonalisedQuery } from './model'
import {
	connectionFeedJson,
	personalisedFeedJson,
	startConnectionEarly,
	startPersonalisedEarly,
	startUniversalEarly,
	universalFeedJson,
} from './service'

const tags = ['feeds']
// The page's first read goes out with the token's checks (one round trip for a hot page).
const universalAuth = { needed: 'member', early: startUniversalEarly } as const
const connectionAuth = { needed: 'member', early: startConnectionEarly } as const
const personalisedAuth = { needed: 'member', early: startPersonalisedEarly } as const

export const feedsModule = new Elysia({ name: 'feeds' })
	.use(authPlugin)
	.get(
		'/feed/universal',
		async ({ session, query, request }) =>
			okJson(await universalFeedJson(viewerOf(session), query, request)),
		{
			auth: universalAuth,
			query: FeedQuery,
			detail: {
				summary: 'Community posts, newest first, optionally by topics and widgets',
				tags,
			},
		},
	)
	.get(
		'/feed/group',
		async ({ session, query, request }) =>
			okJson(await universalFeedJson(viewerOf(session), query, request)),
		{
			auth: universalAuth,
			query: FeedQuery,
			detail: {
				summary: 'The universal feed of one or more topics (client compatibility)',
				tags,
			},
		},
	)
	.get(
		'/feed/connection',
		async ({ session, query, request }) => {
			const { page, pageSize } = paging(query.page, query.page_size, 20)
			return okJson(await connectionFeedJson(session, page, pageSize, request))
		},
		{
			auth: connectionAuth,
			query: ConnectionFeedQuery,
			detail: {
				summary: "Posts of the caller's connections, newest first (needs user_connection)",
				tags,
			},
		},
	)
	.get(
		'/feed/personalised',
		async ({ session, query, request }) =>
			okJson(
				await personalisedFeedJson(
					session,
					{
						...paging(query.page, query.page_size, 20),
						reorder: query.should_reorder ?? false,
						recompute: query.should_recompute ?? false,
						topics: query.topics,
					},
					request,
				),
			),
		{
			auth: personalisedAuth,
			query: PersonalisedQuery,
			detail: { summary: 'The ranked feed of the caller', tags },
		},
	)
