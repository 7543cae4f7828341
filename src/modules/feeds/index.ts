// Feed routes served from Redis: GET /feed/universal and its alias for topics,
// GET /feed/group?topic_ids= (kept for client compatibility).
import { Elysia } from 'elysia'
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

/**
 * The envelope around a pre-serialized `data` (the feed is spliced, not re-serialized;
 * graph-feeds uses it too). Written through a direct stream, not a Buffer body: Bun
 * 1.4 sends a buffer body of a response produced after an await (every feed page
 * waits on Redis) in ~1.5 KB sendto calls (~15 per page, strace), which capped a
 * 24 KB page at ~11k req/s even as a constant; a direct stream goes out in one
 * chunked write (~60k req/s) and the three parts need no concatenation.
 */
const head = Buffer.from('{"success":true,"error_message":null,"data":')
const tail = Buffer.from('}')
const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' }
export const serve = (data: Buffer) =>
	new Response(
		new ReadableStream({
			type: 'direct',
			pull(out) {
				out.write(head)
				out.write(data)
				out.write(tail)
				out.end()
			},
		}),
		{ headers: jsonHeaders },
	)

export const feedsModule = new Elysia({ name: 'feeds' })
	.use(authPlugin)
	.get(
		'/feed/universal',
		async ({ session, query }) =>
			serve(await readUniversalJson(viewerFromSession(session), feedQuery(query))),
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
			serve(await readUniversalJson(viewerFromSession(session), feedQuery(query))),
		{
			auth: 'member',
			query: FeedQuery,
			detail: {
				summary: 'The universal feed of one or more topics (client compatibility)',
				tags: ['feeds'],
			},
		},
	)
