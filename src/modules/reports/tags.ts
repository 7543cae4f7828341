// Report tags: what a report is filed under, per entity type. Every community starts with
// the defaults (seeded on its first read); CMs add and remove tags. A tag that needs a
// reason ("other") refuses a report without one.
import { sql } from '../../lib/db'
import { badRequest, Messages, notFound } from '../../lib/errors'
import { requireRole, type Session } from '../auth/session'
import { ENTITY_TYPES, type EntityType } from './model'
import { deleteTag, hasAnyTag, insertTags, listTags, type TagRow } from './tags-repo'

const DEFAULT_NAMES = [
	'spam',
	'harassment',
	'hate',
	'nudity',
	'violence',
	'misinformation',
	'other',
]

const defaults = () =>
	ENTITY_TYPES.flatMap((entity_type) =>
		DEFAULT_NAMES.map((name) => ({ entity_type, name, needs_reason: name === 'other' })),
	)

/** Seeds the defaults once: a community that has (or had) any tag keeps its own. */
async function seeded(communityId: number): Promise<void> {
	if (!(await hasAnyTag(sql, communityId)))
		await insertTags(sql, communityId, defaults(), Date.now())
}

// chat-js names the entity type by number (its ReportEntityType of chat: 0 member, 3 conversation…).
const CHAT_TYPES: Record<string, EntityType> = {
	'0': 'member',
	'1': 'chatroom',
	'2': 'chatroom',
	'3': 'conversation',
	'4': 'post',
	'5': 'comment',
	'6': 'reply',
}

/** An entity type as either SDK names it, or 400 naming `field`. */
export function entityTypeOf(value: string | number, field = 'entity_type'): EntityType {
	const text = String(value).toLowerCase()
	const type = (ENTITY_TYPES as readonly string[]).includes(text)
		? (text as EntityType)
		: CHAT_TYPES[text]
	if (!type) throw badRequest(`${field} must be one of ${ENTITY_TYPES.join(', ')}`)
	return type
}

const present = (tag: TagRow) => ({
	id: tag.id,
	name: tag.name,
	entity_type: tag.entity_type,
	needs_reason: tag.needs_reason,
})

export async function getTags(session: Session, entityType: string | undefined) {
	await seeded(session.communityId)
	const type = entityType === undefined ? null : entityTypeOf(entityType)
	const tags = await listTags(sql, session.communityId, type)
	return { report_tags: tags.map(present) }
}

export async function addTag(
	session: Session,
	input: { entity_type: string; name: string; needs_reason?: boolean },
) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	await seeded(session.communityId)
	const entityType = entityTypeOf(input.entity_type)
	const name = input.name.trim()
	if (!name) throw badRequest('name must not be empty')
	const [tag] = await insertTags(
		sql,
		session.communityId,
		[{ entity_type: entityType, name, needs_reason: input.needs_reason ?? false }],
		Date.now(),
	)
	if (!tag) throw badRequest(`name: ${entityType} already has the tag "${name}"`)
	return { report_tag: present(tag) }
}

export async function removeTag(session: Session, tagId: string) {
	requireRole(session, 'cm', Messages.notCmOrOwner)
	const id = Number(tagId)
	if (!Number.isSafeInteger(id) || id < 1 || !(await deleteTag(sql, session.communityId, id)))
		throw notFound('Report tag')
	return { id, is_deleted: true }
}
