// The connection and personalised feeds for one viewer: the rules (feature gate,
// paging) on top of the timelines engine, which does the reading and hydration.
import { noteFeedRead } from '../../timelines/activity'
import { readConnectionFeed } from '../../timelines/connection-feed'
import { hydratePosts } from '../../timelines/hydrate'
import { readPersonalised } from '../../timelines/personalised'
import type { Viewer } from '../../timelines/present'
import type { Session } from '../auth/plugin'
import { assertConnectionsEnabled } from '../connections/service'

const viewerOf = (session: Session): Viewer => ({
	userId: session.userId,
	communityId: session.communityId,
	isCm: session.role === 'cm' || session.role === 'owner',
})

export async function connectionFeed(session: Session, page: number, pageSize: number) {
	await Promise.all([assertConnectionsEnabled(session.communityId), noteFeedRead(session.userId, session.communityId)])
	const { ids, total } = await readConnectionFeed(session.userId, session.communityId, (page - 1) * pageSize, pageSize)
	const { posts, users } = await hydratePosts(viewerOf(session), ids, { visibilities: ['public', 'connections'] })
	return { feed: posts, users, total_count: total, page, page_size: pageSize }
}

export interface PersonalisedOptions {
	page: number
	pageSize: number
	reorder: boolean
	recompute: boolean
	topics: string | undefined
}

export async function personalisedFeed(session: Session, options: PersonalisedOptions) {
	await noteFeedRead(session.userId, session.communityId)
	const topicNames = (options.topics ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean)
	const data = await readPersonalised(viewerOf(session), {
		page: options.page,
		pageSize: options.pageSize,
		reorder: options.reorder,
		recompute: options.recompute,
		topicNames,
	})
	return { ...data, page: options.page, page_size: options.pageSize }
}
