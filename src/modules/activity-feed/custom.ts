// Custom activities (POST /feed/user/activity, CM only): one activity per recipient,
// each pushed and told to `notifications.feed` webhooks (by recordActivities). Recipients and the actor
// are named by service uuid or customer id; any unknown recipient refuses the whole
// request, so nothing is half created.
import { type Db, sql, transaction } from '../../lib/db'
import { badRequest } from '../../lib/errors'
import { isId } from '../../lib/ids'
import type { Session } from '../auth/plugin'
import { Action, actionNames, type CustomActivityInput, EntityType } from '../notifications/model'
import { recordActivities } from '../notifications/service'
import { findCommentsByIds } from '../posts/comments/repo'
import { findPost } from '../posts/repo'
import { findUsersByRefs, type UserRow } from '../users/repo'

const entityTypes = { post: EntityType.post, comment: EntityType.comment, user: EntityType.user }

function refIndex(users: UserRow[]) {
	const byRef = new Map<string, UserRow>()
	for (const u of users) {
		byRef.set(u.uuid, u)
		if (u.user_unique_id) byRef.set(u.user_unique_id, u)
	}
	return byRef
}

async function resolveRecipients(communityId: number, refs: string[]): Promise<UserRow[]> {
	const unique = [...new Set(refs.map((r) => r.trim()).filter(Boolean))]
	const byRef = refIndex(await findUsersByRefs(sql, communityId, unique))
	const unknown = unique.filter((r) => !byRef.has(r))
	if (unknown.length > 0) {
		const named = unknown.slice(0, 20).join(', ')
		const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : ''
		throw badRequest(`Unknown recipients in action_on: ${named}${more}`)
	}
	const users = unique.flatMap((r) => byRef.get(r) ?? [])
	return [...new Map(users.map((u) => [u.id, u])).values()]
}

/** The entity's ids as activities store them; 400 when it does not exist in this community. */
async function resolveEntity(db: Db, communityId: number, type: number, id: string) {
	const missing = () => badRequest(`Unknown ${Object.keys(entityTypes)[type]} ${id} in entity_id`)
	if (type === EntityType.post) {
		const post = isId(id) ? await findPost(db, communityId, id) : null
		if (!post || post.is_deleted) throw missing()
		return { entityId: post.id, postId: post.id, commentId: null }
	}
	if (type === EntityType.comment) {
		const [comment] = isId(id) ? await findCommentsByIds(db, communityId, [id]) : []
		if (!comment || comment.is_deleted || comment.community_id !== communityId) throw missing()
		return { entityId: comment.id, postId: comment.post_id, commentId: comment.id }
	}
	const [user] = await findUsersByRefs(db, communityId, [id])
	if (!user) throw missing()
	return { entityId: user.uuid, postId: null, commentId: null }
}

export async function createCustomActivity(session: Session, body: CustomActivityInput) {
	if (body.action !== actionNames[Action.custom]) throw badRequest('action must be custom_activity')
	const type = entityTypes[body.entity_type as keyof typeof entityTypes]
	if (type === undefined) throw badRequest('entity_type must be post, comment or user')
	const text = body.activity_text.trim()
	if (text === '') throw badRequest('activity_text is required')
	const recipients = await resolveRecipients(session.communityId, body.action_on)
	const actor = body.action_by
		? (await findUsersByRefs(sql, session.communityId, [body.action_by]))[0]
		: null
	if (body.action_by && !actor) throw badRequest(`Unknown user ${body.action_by} in action_by`)
	const actorId = actor?.id ?? session.userId
	await transaction(async (tx) => {
		const entity = await resolveEntity(tx, session.communityId, type, body.entity_id)
		await recordActivities(tx, {
			communityId: session.communityId,
			action: Action.custom,
			entityType: type,
			...entity,
			actorId,
			recipientIds: recipients.map((r) => r.id),
			grouped: false,
			customText: text,
		})
	})
	return { count: recipients.length }
}
