// The activity as clients parse it (DESIGN section 9): integer action and entity_type
// (their names with x-accept-version: v1), action_by latest last, an activity_text
// naming the latest actor, the cta route and the entity itself.
import type { CachedUser } from '../../timelines'
import { type ActionCode, actionNames, actionVerbs, type EntityCode, entityNames } from './model'
import type { ActivityRow } from './repo'

/** At most this many actors are listed in action_by (the text still counts them all). */
export const ACTION_BY_SHOWN = 25

export const tagOf = (user: Pick<CachedUser, 'name' | 'uuid'>) =>
	`<<${user.name}|route://user_profile/${user.uuid}>>`

/** "Alice liked your post", "Alice and 1 other …", "Alice and N others …" (Alice the latest). */
export function activityText(
	action: ActionCode,
	latest: Pick<CachedUser, 'name' | 'uuid'> | undefined,
	actors: number,
): string {
	const who = latest ? tagOf(latest) : 'Someone'
	const others = actors - 1
	const more = others <= 0 ? '' : others === 1 ? ' and 1 other' : ` and ${others} others`
	return `${who}${more} ${actionVerbs[action]}`
}

/** The tag markup of a text reduced to the names (push titles are plain text). */
export const plainText = (text: string) =>
	text.replace(/<<([^|<>]*)\|[^<>]*>>/g, '$1').replace(/\s+/g, ' ')

export function ctaOf(
	row: Pick<ActivityRow, 'entity_type' | 'entity_id' | 'post_id' | 'comment_id'>,
) {
	if (row.entity_type === 2) return `route://user_profile/${row.entity_id}`
	if (!row.post_id) return ''
	const comment = row.comment_id ? `&comment_id=${row.comment_id}` : ''
	return `route://post_detail?post_id=${row.post_id}${comment}`
}

export interface ActivityContext {
	users: Map<number, CachedUser>
	recipientUuid: string
	entityOwnerUuid: string
	v1: boolean
}

/**
 * The activity without its `activity_entity_data`, which the page splices in as the
 * bytes the entity already is. `row.actor_ids` holds the last ACTION_BY_SHOWN actors.
 */
export function presentActivity(row: ActivityRow, ctx: ActivityContext) {
	const actors = row.actor_ids.flatMap((id) => {
		const user = ctx.users.get(id)
		return user ? [user.uuid] : []
	})
	const latest = ctx.users.get(row.actor_ids[row.actor_ids.length - 1])
	return {
		_id: row.id,
		id: row.id,
		action: ctx.v1 ? actionNames[row.action] : row.action,
		entity_type: ctx.v1 ? entityNames[row.entity_type as EntityCode] : row.entity_type,
		entity_id: row.entity_id,
		entity_owner_id: ctx.entityOwnerUuid,
		action_by: actors,
		action_on: [ctx.recipientUuid],
		activity_text: row.custom_text ?? activityText(row.action, latest, row.actor_count),
		cta: ctaOf(row),
		is_read: row.is_read,
		created_at: row.created_at,
		updated_at: row.updated_at,
	}
}
