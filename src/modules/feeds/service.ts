// The feeds for one viewer: the rules (feature gate, paging, the activity note) on top
// of the timelines engine, which reads Redis and serializes the page (byte splicing).
// Each feed's first round trip can start early, from the auth check as soon as the
// token is verified (plugin.ts EarlyRead), so a hot page costs one round trip in all.
import { parseIdList } from '../../lib/id-list'
import { paging, pagingFromRaw } from '../../lib/paging'
import {
	type ConnectionFirstRead,
	type FeedQuery,
	type FirstRead,
	noteFeedRead,
	type PersonalisedFirstRead,
	readConnectionFeedJson,
	readPersonalisedJson,
	readUniversalJson,
	startConnectionRead,
	startPersonalisedRead,
	startUniversalRead,
	type Viewer,
} from '../../timelines'
import { keepEarly, takeEarly } from '../auth/early'
import { type Caller, type Session, viewerOf } from '../auth/session'
import { assertConnectionsEnabled } from '../connections/service'
import type { FeedQuery as FeedQueryModel } from './model'

type UniversalQuery = typeof FeedQueryModel.static

function feedQuery(query: UniversalQuery): FeedQuery {
	return {
		topicIds: parseIdList('topic_ids', query.topic_ids),
		widgetIds: parseIdList('widget_ids', query.widget_ids),
		...paging(query.page, query.page_size, 20),
		cursor: query.cursor || undefined,
	}
}

/**
 * Starts the universal page's first read from the raw query, beside the token's checks.
 * A query the schema would refuse is left alone (the handler never runs for it); one
 * that parses differently once validated reads again (its page key differs).
 */
export function startUniversalEarly(
	request: Request,
	caller: Caller,
	rawQuery: Record<string, unknown>,
): void {
	let query: FeedQuery
	try {
		query = feedQuery(rawQuery as UniversalQuery)
	} catch {
		return
	}
	keepEarly(request, 'universal', startUniversalRead(caller, query))
}

/** The `data` JSON of GET /feed/universal and /feed/group. */
export function universalFeedJson(
	viewer: Viewer,
	query: UniversalQuery,
	request: Request,
): Promise<Buffer> {
	return readUniversalJson(viewer, feedQuery(query), takeEarly<FirstRead>(request, 'universal'))
}

/** The connection page's first read, with the activity note and the feature check (one round trip). */
function startConnection(caller: Caller, page: number, pageSize: number) {
	return startConnectionRead(
		caller,
		page,
		pageSize,
		noteFeedRead(caller.userId, caller.communityId),
		() => assertConnectionsEnabled(caller.communityId),
	)
}

/** Starts the connection page's first read beside the token's checks. */
export function startConnectionEarly(
	request: Request,
	caller: Caller,
	rawQuery: Record<string, unknown>,
): void {
	const { page, pageSize } = pagingFromRaw(rawQuery, 20)
	keepEarly(request, `conn|${page}|${pageSize}`, startConnection(caller, page, pageSize))
}

/** The `data` JSON of GET /feed/connection: `{feed, users, total_count, page, page_size}`. */
export function connectionFeedJson(
	session: Session,
	page: number,
	pageSize: number,
	request: Request,
): Promise<Buffer> {
	const started =
		takeEarly<ConnectionFirstRead>(request, `conn|${page}|${pageSize}`) ??
		startConnection(session, page, pageSize)
	return readConnectionFeedJson(viewerOf(session), page, pageSize, started)
}

export interface PersonalisedOptions {
	page: number
	pageSize: number
	reorder: boolean
	recompute: boolean
	topics: string | undefined
}

/**
 * Starts a plain personalised page's first read (with the activity note) beside the
 * token's checks; a reorder, recompute or topic filter reads after them as before.
 */
export function startPersonalisedEarly(
	request: Request,
	caller: Caller,
	rawQuery: Record<string, unknown>,
): void {
	const { should_reorder, should_recompute, topics } = rawQuery
	if (should_reorder !== undefined || should_recompute !== undefined || topics !== undefined) return
	const { page, pageSize } = pagingFromRaw(rawQuery, 20)
	const gate = noteFeedRead(caller.userId, caller.communityId)
	keepEarly(
		request,
		`pers|${page}|${pageSize}`,
		startPersonalisedRead(caller, page, pageSize, gate),
	)
}

/** The `data` JSON of GET /feed/personalised: `{posts (each with user), users, total_count, page, page_size}`. */
export async function personalisedFeedJson(
	session: Session,
	options: PersonalisedOptions,
	request: Request,
): Promise<Buffer> {
	const topicNames = (options.topics ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean)
	const query = { ...options, topicNames }
	const started = takeEarly<PersonalisedFirstRead>(
		request,
		`pers|${options.page}|${options.pageSize}`,
	)
	if (started) return readPersonalisedJson(viewerOf(session), query, started)
	const [, data] = await Promise.all([
		noteFeedRead(session.userId, session.communityId),
		readPersonalisedJson(viewerOf(session), query),
	])
	return data
}
