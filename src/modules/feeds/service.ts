// The connection and personalised feeds for one viewer: the rules (feature gate,
// paging) on top of the timelines engine, which reads Redis and serializes the page
// (the universal feed's byte-splicing render path).
import { paging } from '../../lib/paging'
import {
	type FeedQuery,
	type FirstRead,
	noteFeedRead,
	readConnectionFeedJson,
	readPersonalisedJson,
	readUniversalJson,
	startUniversalRead,
	type Viewer,
} from '../../timelines'
import { type Caller, type Session, viewerOf } from '../auth/session'
import { assertConnectionsEnabled } from '../connections/service'
import { type FeedQuery as FeedQueryModel, parseIdList } from './model'

type UniversalQuery = typeof FeedQueryModel.static

function feedQuery(query: UniversalQuery): FeedQuery {
	return {
		topicIds: parseIdList('topic_ids', query.topic_ids),
		widgetIds: parseIdList('widget_ids', query.widget_ids),
		...paging(query.page, query.page_size, 20),
		cursor: query.cursor || undefined,
	}
}

// First reads started before the handler (by the auth check, once the token verified).
const earlyReads = new WeakMap<Request, Promise<FirstRead>>()

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
	const read = startUniversalRead(caller, query)
	// Observed now: a refused token never takes it, and its error must not go unhandled.
	read.catch(() => {})
	earlyReads.set(request, read)
}

/** The `data` JSON of GET /feed/universal and /feed/group. */
export function universalFeedJson(
	viewer: Viewer,
	query: UniversalQuery,
	request: Request,
): Promise<Buffer> {
	return readUniversalJson(viewer, feedQuery(query), earlyReads.get(request))
}

/** The `data` JSON of GET /feed/connection: `{feed, users, total_count, page, page_size}`. */
export function connectionFeedJson(
	session: Session,
	page: number,
	pageSize: number,
): Promise<Buffer> {
	// The gate and the activity note go out with the feed's first read (one round trip).
	const gate = Promise.all([
		assertConnectionsEnabled(session.communityId),
		noteFeedRead(session.userId, session.communityId),
	])
	return readConnectionFeedJson(viewerOf(session), page, pageSize, gate)
}

export interface PersonalisedOptions {
	page: number
	pageSize: number
	reorder: boolean
	recompute: boolean
	topics: string | undefined
}

/** The `data` JSON of GET /feed/personalised: `{posts (each with user), users, total_count, page, page_size}`. */
export async function personalisedFeedJson(
	session: Session,
	options: PersonalisedOptions,
): Promise<Buffer> {
	const topicNames = (options.topics ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean)
	const [, data] = await Promise.all([
		noteFeedRead(session.userId, session.communityId),
		readPersonalisedJson(viewerOf(session), {
			page: options.page,
			pageSize: options.pageSize,
			reorder: options.reorder,
			recompute: options.recompute,
			topicNames,
		}),
	])
	return data
}
