// Feed routes served from Redis: GET /feed/universal and its alias for topics,
// GET /feed/group?topic_ids= (kept for client compatibility).
import { Elysia } from 'elysia'
import { okJson } from '../../lib/raw-json'
import { viewerFromSession } from '../../timelines/present'
import { readUniversalJson } from '../../timelines/universal'
import { authPlugin } from '../auth/plugin'
import { FeedQuery, MAX_PAGE_SIZE, parseIdList } from './model'

type Query = typeof FeedQuery.static

function feedQuery(query: Query) {
	return {
		topicIds: parseIdList('topic_ids', query.topic_ids),
		widgetIds: parseIdList('widget_ids', query.widget_ids),
		page: query.page ?? 1,
		pageSize: Math.min(query.page_size ?? 20, MAX_PAGE_SIZE),
		cursor: query.cursor || undefined,
	}
}

export const feedsModule = new Elysia({ name: 'feeds' })
	.use(authPlugin)
	.get(
		'/feed/universal',
		async ({ session, query }) =>
			okJson(await readUniversalJson(viewerFromSession(session), feedQuery(query))),
		{
			auth: 'member',
			query: FeedQuery,
			detail: {
				summary: 'Community posts, newest first, optionally by topics and widgets',
				tags: ['feeds'],
			},
		},
	)
	.get(
		'/feed/group',
		async ({ session, query }) =>
			okJson(await readUniversalJson(viewerFromSession(session), feedQuery(query))),
		{
			auth: 'member',
			query: FeedQuery,
			detail: {
				summary: 'The universal feed of one or more topics (client compatibility)',
				tags: ['feeds'],
			},
		},
	)
