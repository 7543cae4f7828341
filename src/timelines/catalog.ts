// Which topic and widget ids exist in a community, and which topics are enabled:
// one HMGET per feed read. Fields are `t:<id>` ('1' enabled, '0' disabled) and
// `w:<id>` ('1'); a miss is read from Postgres and stored, so new topics and widgets
// need no invalidation. topicsChanged() (placement.ts) drops changed topics.
import { sql } from '../lib/db'
import { notFound } from '../lib/errors'
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { existingWidgetIds, topicStates } from './repo'

const CATALOG_TTL_SECONDS = 86_400

export interface ResolvedFilters {
	/** The requested topics that are enabled (a disabled one matches nothing). */
	enabledTopicIds: string[]
	widgetIds: string[]
}

/** Checks feed filter ids against the community: an unknown or foreign id is 404. */
export async function resolveFilters(
	communityId: number,
	topicIds: string[],
	widgetIds: string[],
): Promise<ResolvedFilters> {
	const fields = [...topicIds.map((id) => `t:${id}`), ...widgetIds.map((id) => `w:${id}`)]
	if (fields.length === 0) return { enabledTopicIds: [], widgetIds: [] }
	const key = keys.catalog(communityId)
	const answers = await redis.hmget(key, ...fields)
	const state = new Map<string, string>()
	fields.forEach((field, i) => {
		const value = answers[i]
		if (value !== null && value !== undefined) state.set(field, value)
	})
	const missingTopics = topicIds.filter((id) => !state.has(`t:${id}`))
	const missingWidgets = widgetIds.filter((id) => !state.has(`w:${id}`))
	if (missingTopics.length > 0 || missingWidgets.length > 0) {
		const [topics, widgets] = await Promise.all([
			topicStates(sql, communityId, missingTopics),
			existingWidgetIds(sql, communityId, missingWidgets),
		])
		const fill: Record<string, string> = {}
		for (const topic of topics) fill[`t:${topic.id}`] = topic.is_enabled ? '1' : '0'
		for (const id of widgets) fill[`w:${id}`] = '1'
		for (const [field, value] of Object.entries(fill)) state.set(field, value)
		if (Object.keys(fill).length > 0)
			await redis.multi().hset(key, fill).expire(key, CATALOG_TTL_SECONDS).exec()
	}
	if (topicIds.some((id) => !state.has(`t:${id}`))) throw notFound('Topic')
	if (widgetIds.some((id) => !state.has(`w:${id}`))) throw notFound('Widget')
	return { enabledTopicIds: topicIds.filter((id) => state.get(`t:${id}`) === '1'), widgetIds }
}
