// Chat home and explore routes: GET /chatroom/sync (chat-js getHomeFeed), GET
// /chatroom/home (the same home), GET /community/feed (chat-js getExploreFeed).
import { Elysia, t } from 'elysia'
import { ok } from '../../lib/envelope'
import { badRequest } from '../../lib/errors'
import { pageFields } from '../../lib/paging'
import { authPlugin } from '../auth/plugin'
import { exploreFeed, type HomeInput, homeFeed } from './service'

const tags = ['chatrooms']

/** chat-js writes absent values as "undefined"; numbers arrive as text. */
const Loose = t.Optional(t.String({ maxLength: 200 }))

const HomeQuery = t.Object({
	...pageFields,
	chatroom_types: Loose,
	min_timestamp: Loose,
	max_timestamp: Loose,
})

const absent = (raw: string | undefined) =>
	raw === undefined || raw === '' || raw === 'undefined' || raw === 'null'

function numberOf(field: string, raw: string | undefined): number | null {
	if (absent(raw)) return null
	const value = Number(raw)
	if (!Number.isFinite(value) || value < 0) throw badRequest(`${field} must be a number`)
	return value
}

/** `chatroom_types`: a comma list or a JSON array of room types ("0,7", "[0,10]"). */
function typesOf(raw: string | undefined): number[] | null {
	if (absent(raw)) return null
	const text = (raw as string).replace(/^\[|\]$/g, '')
	const types = text
		.split(',')
		.map((v) => v.trim())
		.filter((v) => v !== '')
		.map(Number)
	if (types.length === 0) return null
	if (types.some((n) => !Number.isInteger(n) || n < 0 || n > 100))
		throw badRequest('chatroom_types must be a list of room types')
	return types
}

const homeInput = (q: typeof HomeQuery.static): HomeInput => ({
	page: q.page,
	page_size: q.page_size,
	chatroom_types: typesOf(q.chatroom_types),
	min_timestamp: numberOf('min_timestamp', q.min_timestamp),
	max_timestamp: numberOf('max_timestamp', q.max_timestamp),
})

export const chatHomeModule = new Elysia({ name: 'chat-home' })
	.use(authPlugin)
	.get(
		'/chatroom/sync',
		async ({ session, query }) => ok(await homeFeed(session, homeInput(query))),
		{
			auth: 'member',
			query: HomeQuery,
			detail: {
				summary: 'The rooms the member follows, latest message first, by room types',
				tags,
			},
		},
	)
	.get(
		'/chatroom/home',
		async ({ session, query }) => ok(await homeFeed(session, homeInput(query))),
		{
			auth: 'member',
			query: HomeQuery,
			detail: { summary: 'The chat home: as /chatroom/sync', tags },
		},
	)
	.get(
		'/community/feed',
		async ({ session, query }) => ok(await exploreFeed(session, query.order_type ?? 0, query.page)),
		{
			auth: 'member',
			query: t.Object({
				order_type: t.Optional(t.Integer({ minimum: 0, maximum: 10 })),
				page: pageFields.page,
			}),
			detail: {
				summary:
					'Explore: rooms the member may see (order_type 0 newest, 1 active, 2 messages, 3 participants)',
				tags,
			},
		},
	)
