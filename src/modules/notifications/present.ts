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

/**
 * An activity as the Redis copy holds it (store.ts), so that a page read parses no JSON:
 * a tab-separated header (what the read looks up: the entity, the actors, the action),
 * then the members that never change for the row, already JSON, then the custom text as
 * JSON or nothing. JSON never holds a raw newline, so lines split safely; the header
 * starts with the entity type (the copy's page script picks posts out by it).
 */
export function activityRecord(row: ActivityRow): string {
	const header = [
		row.entity_type,
		row.entity_id,
		row.actor_ids.join(','),
		row.actor_count,
		row.action,
	]
	const fixed = JSON.stringify({
		_id: row.id,
		id: row.id,
		entity_id: row.entity_id,
		cta: ctaOf(row),
		created_at: row.created_at,
		updated_at: row.updated_at,
	}).slice(1, -1)
	const custom = row.custom_text === null ? '' : JSON.stringify(row.custom_text)
	return `${header.join('\t')}\n${fixed}\n${custom}`
}

/** An activity of a page: its record split, and whether it is read. */
export interface PageActivity {
	entityType: EntityCode
	entityId: string
	/** the last ACTION_BY_SHOWN actors, latest last */
	actorIds: number[]
	actorCount: number
	action: ActionCode
	/** `"_id":…,"updated_at":…`: the members the row fixes */
	fixed: string
	/** the custom text as JSON, or '' */
	customText: string
	isRead: boolean
}

export function parseRecord(record: string, isRead: boolean): PageActivity {
	const [head, fixed, customText] = record.split('\n')
	const [type, entityId, actors, count, action] = head.split('\t')
	return {
		entityType: Number(type) as EntityCode,
		entityId,
		actorIds: actors === '' ? [] : actors.split(',').map(Number),
		actorCount: Number(count),
		action: Number(action) as ActionCode,
		fixed,
		customText,
		isRead,
	}
}

/** What a page knows beside its activities: the users it names and the viewer. */
export interface ActivityContext {
	users: Map<number, Pick<CachedUser, 'name' | 'uuid'>>
	/** the viewer's uuid as JSON (every activity of the page is theirs) */
	recipientJson: string
	v1: boolean
}

/**
 * The activity up to `"activity_entity_data":`, which the page follows with the bytes
 * the entity already is and a closing brace. The members that depend on other rows
 * (uuids and the latest actor's name) are written from `ctx`.
 */
export function activityHead(a: PageActivity, entityOwnerUuid: string, ctx: ActivityContext) {
	const actors: string[] = []
	for (const id of a.actorIds) {
		const user = ctx.users.get(id)
		if (user) actors.push(user.uuid)
	}
	const latest = ctx.users.get(a.actorIds[a.actorIds.length - 1])
	const action = ctx.v1 ? JSON.stringify(actionNames[a.action]) : a.action
	const entityType = ctx.v1 ? JSON.stringify(entityNames[a.entityType]) : a.entityType
	const text = a.customText || JSON.stringify(activityText(a.action, latest, a.actorCount))
	return `{${a.fixed},"action":${action},"entity_type":${entityType},"entity_owner_id":${JSON.stringify(entityOwnerUuid)},"action_by":${JSON.stringify(actors)},"action_on":[${ctx.recipientJson}],"activity_text":${text},"is_read":${a.isRead},"activity_entity_data":`
}
