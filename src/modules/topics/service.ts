// Topics: creation (both body forms), listing with every filter, edit, enable and
// disable, and deletion of whole subtrees. Names are unique per parent, ignoring case.
import { sql } from '../../lib/db'
import { badRequest, notFound } from '../../lib/errors'
import { parseIdList } from '../../lib/id-list'
import { newId } from '../../lib/ids'
import { paging } from '../../lib/paging'
import { feedManager } from '../../timelines'
import type { Session } from '../auth/session'
import type { EditTopicInput, LenientBoolean, TopicInput, TopicListQuery } from './model'
import { presentTopic } from './present'
import {
	childTopics,
	deleteTopicsTree,
	findTopic,
	findTopicsByIds,
	insertTopics,
	listTopics,
	type NewTopic,
	type TopicOrder,
	takenNames,
	updateTopic,
} from './repo'

const NAME_MAX = 100

function topicName(value: string): string {
	const name = value.trim()
	if (name === '') throw badRequest('Topic name is required')
	if (name.length > NAME_MAX) throw badRequest(`Topic name longer than ${NAME_MAX} characters`)
	return name
}

/** The schema lets "true"/"false" through as strings (a migration sample sends them so). */
function booleanOf(value: LenientBoolean | null | undefined, fallback?: boolean) {
	if (value === undefined || value === null) return fallback
	return value === true || value === 'true'
}

/** The schema lets a decimal string through as well as a number. */
function priorityOf(value: number | string | null | undefined, fallback?: number) {
	if (value === undefined || value === null) return fallback
	const number = Number(value)
	if (!Number.isFinite(number)) throw badRequest('priority must be a number')
	return number
}

function metadataOf(value: unknown, fallback?: Record<string, unknown>) {
	if (value === undefined || value === null) return fallback
	if (typeof value !== 'object' || Array.isArray(value))
		throw badRequest('metadata must be an object')
	return value as Record<string, unknown>
}

const parentIdOf = (value: string | null | undefined): string | null => value || null

async function resolveParents(communityId: number, parentIds: string[]) {
	const parents = new Map(
		(await findTopicsByIds(sql, communityId, parentIds)).map((t) => [t.id, t]),
	)
	for (const id of parentIds) if (!parents.has(id)) throw badRequest(`Parent topic ${id} not found`)
	return parents
}

export async function createTopics(
	session: Session,
	names: string[] | undefined,
	topics: TopicInput[] | undefined,
) {
	const inputs: TopicInput[] = [...(names ?? []).map((name) => ({ name })), ...(topics ?? [])]
	if (inputs.length === 0) throw badRequest('names or topics is required')
	const now = Date.now()
	const parentIds = [
		...new Set(inputs.map((i) => parentIdOf(i.parent_id)).filter((p): p is string => p !== null)),
	]
	const parents = await resolveParents(session.communityId, parentIds)
	const taken = await takenNames(sql, session.communityId, ['', ...parentIds])
	const rows: NewTopic[] = inputs.map((input) => {
		const name = topicName(input.name)
		const parentId = parentIdOf(input.parent_id)
		const key = `${parentId ?? ''}\u0000${name.toLowerCase()}`
		if (taken.has(key)) throw badRequest(`Topic ${name} already exists`)
		taken.add(key)
		return {
			id: newId(),
			community_id: session.communityId,
			name,
			priority: priorityOf(input.priority, 0) as number,
			is_searchable: booleanOf(input.is_searchable, true) as boolean,
			parent_id: parentId,
			level: parentId ? (parents.get(parentId)?.level ?? 0) + 1 : 0,
			is_enabled: booleanOf(input.is_enabled, true) as boolean,
			metadata: metadataOf(input.metadata, {}) as Record<string, unknown>,
			created_at: now,
		}
	})
	const created = await insertUnique(() => sql.begin((tx) => insertTopics(tx, rows)))
	const byId = new Map(created.map((t) => [t.id, t]))
	return { topics: rows.map((r) => presentTopic(byId.get(r.id)!)) }
}

/** A concurrent request may take a name between our check and insert: still a 400. */
async function insertUnique<T>(run: () => Promise<T>): Promise<T> {
	try {
		return await run()
	} catch (error) {
		if ((error as { code?: string }).code === '23505')
			throw badRequest('Topic name already exists under this parent')
		throw error
	}
}

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`)

export async function listCommunityTopics(session: Session, q: TopicListQuery) {
	const { page, pageSize, offset } = paging(q.page, q.page_size)
	const order: TopicOrder = q.topics_order_by ?? 'priority'
	const search = q.search?.trim()
	const { rows, total } = await listTopics(sql, session.communityId, {
		isEnabled: q.is_enabled,
		nameLike: search ? `%${escapeLike(search)}%` : undefined,
		minPosts: q.min_posts,
		parentIds:
			q.parent_ids === undefined
				? undefined
				: parseIdList('parent_ids', q.parent_ids, { max: 500, keepEmpty: true }),
		order,
		limit: pageSize,
		offset,
	})
	const children = await childTopics(
		sql,
		session.communityId,
		rows.map((r) => r.id),
		q.is_enabled,
	)
	// feed-js's declared GetTopics: the page's topics' children by parent id, and widgets
	// (topics carry none)
	const child_topics: Record<string, ReturnType<typeof presentTopic>[]> = {}
	for (const child of children) {
		const parent = child.parent_id as string
		child_topics[parent] = [...(child_topics[parent] ?? []), presentTopic(child)]
	}
	return {
		page,
		page_size: pageSize,
		total,
		topics: rows.map(presentTopic),
		child_topics,
		widgets: {},
	}
}

export async function editTopic(session: Session, topicId: string, input: EditTopicInput) {
	const current = await findTopic(sql, session.communityId, topicId)
	if (!current) throw notFound('Topic')
	const name = input.name === undefined ? undefined : topicName(input.name)
	if (name !== undefined && name.toLowerCase() !== current.name.toLowerCase()) {
		const taken = await takenNames(sql, session.communityId, [current.parent_id ?? ''])
		if (taken.has(`${current.parent_id ?? ''}\u0000${name.toLowerCase()}`))
			throw badRequest(`Topic ${name} already exists`)
	}
	const isEnabled = booleanOf(input.is_enabled)
	const updated = await insertUnique(() =>
		updateTopic(sql, session.communityId, topicId, {
			name,
			is_enabled: isEnabled,
			priority: priorityOf(input.priority),
			is_searchable: booleanOf(input.is_searchable),
			metadata: metadataOf(input.metadata),
		}),
	)
	if (!updated) throw notFound('Topic')
	if (isEnabled !== undefined && isEnabled !== current.is_enabled) {
		await feedManager.onTopicsChanged(session.communityId, [topicId])
	}
	return { topic: presentTopic(updated) }
}

export async function deleteTopics(session: Session, topicIds: string[]) {
	if (topicIds.length === 0) throw badRequest('topic_ids is required')
	const removed = await sql.begin((tx) =>
		deleteTopicsTree(tx, session.communityId, [...new Set(topicIds)]),
	)
	const gone = new Set(removed.topicIds)
	const deleted = removed.topicIds.map((id) => ({ topic_id: id, status: 'deleted' }))
	const failed = [...new Set(topicIds)]
		.filter((id) => !gone.has(id))
		.map((id) => ({ topic_id: id, status: 'failed', reason: 'Topic not found' }))
	if (gone.size > 0)
		await feedManager.onTopicsChanged(session.communityId, removed.topicIds, removed.postIds)
	return { deleted, failed }
}
