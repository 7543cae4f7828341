// The connection and personalised feeds for one viewer: the rules (feature gate,
// paging) on top of the timelines engine, which reads Redis and serializes the page
// (the universal feed's byte-splicing render path).
import { noteFeedRead, readConnectionFeedJson, readPersonalisedJson } from '../../timelines'
import { type Session, viewerOf } from '../auth/session'
import { assertConnectionsEnabled } from '../connections/service'

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
