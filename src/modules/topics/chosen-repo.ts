// SQL of a member's chosen topics (user_topics, migrations/0101).
import type { Db } from '../../lib/db'

/** Adds and removes a member's chosen topics; only enabled topics of the community are added. */
export async function changeChosenTopics(
	db: Db,
	communityId: number,
	userId: number,
	add: string[],
	remove: string[],
	now: number,
): Promise<void> {
	await db`
		with removed as (
			delete from user_topics where community_id = ${communityId} and user_id = ${userId}
				and topic_id = any(${remove}::text[]))
		insert into user_topics (community_id, user_id, topic_id, created_at)
		select ${communityId}, ${userId}, t.id, ${now} from topics t
		where t.community_id = ${communityId} and t.id = any(${add}::text[]) and t.is_enabled
		on conflict do nothing`
}

/** The chosen topics of these members, by member id (enabled topics only, in id order). */
export async function chosenTopicsOf(
	db: Db,
	communityId: number,
	userIds: number[],
): Promise<{ user_id: number; topic_id: string }[]> {
	if (userIds.length === 0) return []
	return db<{ user_id: number; topic_id: string }[]>`
		select ut.user_id::float8 as user_id, ut.topic_id from user_topics ut
		join topics t on t.community_id = ut.community_id and t.id = ut.topic_id and t.is_enabled
		where ut.community_id = ${communityId} and ut.user_id = any(${userIds}::int8[])
		order by ut.user_id, ut.topic_id`
}
