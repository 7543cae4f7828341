// A member's chosen topics (feed-js updateUserTopics / getUserTopics): what they picked
// to see more of. The personalised feed ranks those topics' posts up (the weight lives
// in timelines/personalised-repo.ts topicAffinity); a change asks for a re-rank.
import { sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { parseIdList } from '../../lib/id-list'
import { isUuid } from '../../lib/ids'
import { queuePersonalisedRecompute } from '../../timelines'
import { isCm, type Session } from '../auth/session'
import { presentUser } from '../users/present'
import { findUserByUuid, findUsersByUuids } from '../users/repo'
import { changeChosenTopics, chosenTopicsOf } from './chosen-repo'
import { presentTopic } from './present'
import { findTopicsByIds } from './repo'

/** At most this many topics in one change, and members in one read. */
export const MAX_CHOSEN = 100

/**
 * PATCH /feed/user/:uuid/topics. `topic_ids` is feed-js's map (id → chosen or not), or a
 * list of ids to choose. The member themself, or a CM for them; 400 naming an unknown or
 * disabled topic to choose.
 */
export async function chooseTopics(
	session: Session,
	uuid: string,
	topicIds: Record<string, boolean> | string[],
): Promise<void> {
	const member = isUuid(uuid) ? await findUserByUuid(sql, session.communityId, uuid) : null
	if (!member) throw notFound('User')
	if (member.id !== session.userId && !isCm(session)) throw forbidden()
	const entries = Array.isArray(topicIds)
		? topicIds.map((id) => [id, true] as const)
		: Object.entries(topicIds)
	if (entries.length > MAX_CHOSEN) throw badRequest(`topic_ids takes at most ${MAX_CHOSEN} topics`)
	const add = entries.filter(([, on]) => on === true).map(([id]) => id)
	const remove = entries.filter(([, on]) => on !== true).map(([id]) => id)
	const found = new Map(
		(await findTopicsByIds(sql, session.communityId, add)).map((t) => [t.id, t]),
	)
	for (const id of add) {
		const topic = found.get(id)
		if (!topic) throw badRequest(`Unknown topic ${id} in topic_ids`)
		if (!topic.is_enabled) throw badRequest(`Topic ${id} in topic_ids is disabled`)
	}
	await changeChosenTopics(sql, session.communityId, member.id, add, remove, Date.now())
	await queuePersonalisedRecompute(member.id, session.communityId)
}

/** GET /feed/user/topics?uuids=: `{topics, user_topics, users, widgets}` (feed-js GetUserTopicsResponse). */
export async function chosenTopics(session: Session, rawUuids: string | undefined) {
	const uuids = rawUuids === undefined ? [session.uuid] : parseIdList('uuids', rawUuids)
	if (uuids.length > MAX_CHOSEN) throw badRequest(`uuids takes at most ${MAX_CHOSEN} members`)
	const members = await findUsersByUuids(sql, session.communityId, uuids.filter(isUuid))
	const chosen = await chosenTopicsOf(
		sql,
		session.communityId,
		members.map((m) => m.id),
	)
	const topics = await findTopicsByIds(sql, session.communityId, [
		...new Set(chosen.map((c) => c.topic_id)),
	])
	const userTopics: Record<string, string[]> = {}
	const users: Record<string, ReturnType<typeof presentUser>> = {}
	for (const member of members) {
		users[member.uuid] = presentUser(member)
		userTopics[member.uuid] = chosen.filter((c) => c.user_id === member.id).map((c) => c.topic_id)
	}
	return {
		topics: Object.fromEntries(topics.map((t) => [t.id, presentTopic(t)])),
		user_topics: userTopics,
		users,
		widgets: {},
	}
}
