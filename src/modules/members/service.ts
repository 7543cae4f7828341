// The member directory and a member's own pages: the list the SDKs page through, a
// profile (read anyone's, edit one's own), the caller's member state with their rights,
// a member's chatrooms as the caller may see them, and the community's questions.
import { sql } from '../../lib/db'
import { badRequest, forbidden, notFound } from '../../lib/errors'
import { MAX_ID } from '../../lib/input-limits'
import { paging } from '../../lib/paging'
import { feedManager } from '../../timelines'
import { presentRights } from '../auth/rights'
import { isCm, type Session } from '../auth/session'
import { chatViewer, seeRoom, visibleSecretRooms } from '../chatrooms/access'
import { listRoomsOfMember } from '../chatrooms/repo'
import { presentRooms } from '../chatrooms/service'
import { findCommunity } from '../projects/repo'
import { presentCommunity } from '../projects/service'
import { presentSdkMember } from '../users/present'
import { findUserById, findUserByUuid, type UserRow, updateProfile } from '../users/repo'
import type { DirectoryFilters, MemberChatroomFilters, MemberRef, ProfileEdit } from './model'
import {
	countMembers,
	findCustomFields,
	findDeparture,
	listDirectory,
	mergeCustomFields,
} from './repo'

/** A query value the SDKs may send as the text 'undefined' or 'null' when unset. */
const given = (value: string | undefined): string | undefined =>
	value === undefined || ['', 'undefined', 'null'].includes(value.trim()) ? undefined : value.trim()

const roleOfState: Record<string, 'cm' | 'member'> = { '1': 'cm', '4': 'member' }

/** GET /community/member (SDKs) — the directory of active members, by name. */
export async function directory(session: Session, filters: DirectoryFilters) {
	const communityId = given(filters.community_id)
	if (communityId !== undefined && communityId !== String(session.communityId))
		throw notFound('Community')
	const state = given(filters.member_state)
	const role = state === undefined ? undefined : roleOfState[state]
	if (state !== undefined && !role)
		throw badRequest('member_state must be 1 (community managers) or 4 (members)')
	const chatroom = given(filters.chatroom_id)
	const room = chatroom === undefined ? null : await seeRoom(sql, chatViewer(session), chatroom)
	const { page, pageSize, offset } = paging(filters.page, filters.page_size, 20)
	const [{ rows, total }, counts, community] = await Promise.all([
		listDirectory(sql, session.communityId, {
			role,
			chatroomId: room?.id,
			search: filters.search?.trim() || undefined,
			limit: pageSize,
			offset,
		}),
		countMembers(sql, session.communityId),
		findCommunity(sql, session.communityId),
	])
	return {
		members: rows.map(presentSdkMember),
		community: community ? presentCommunity(community) : null,
		admins_count: counts.cms,
		members_count: counts.cms + counts.members,
		total_members: counts.cms + counts.members,
		total_only_members: counts.members,
		total_filtered_members: total,
		pending_members_count: 0,
		page,
		page_size: pageSize,
	}
}

/**
 * The member a query names by `uuid` or `user_id` (an id or a uuid), else the caller;
 * 404 for another community's, a deleted one, or (except to CMs) one who left.
 */
async function memberOf(session: Session, ref: MemberRef): Promise<UserRow> {
	const named = given(ref.uuid) ?? given(ref.user_id)
	let user: UserRow | null
	if (named === undefined) user = await findUserById(sql, session.communityId, session.userId)
	// as many digits as a user id may have (bigint ids, held to MAX_ID); a larger one is no one
	else if (/^\d{1,16}$/.test(named))
		user =
			Number(named) <= MAX_ID ? await findUserById(sql, session.communityId, Number(named)) : null
	else user = await findUserByUuid(sql, session.communityId, named)
	if (!user || user.community_id !== session.communityId || user.is_deleted)
		throw notFound('Member')
	if (
		user.id !== session.userId &&
		!isCm(session) &&
		(await findDeparture(sql, session.communityId, user.id))
	)
		throw notFound('Member')
	return user
}

async function presentProfile(session: Session, user: UserRow) {
	const [customFields, departure] = await Promise.all([
		findCustomFields(sql, session.communityId, user.id),
		isCm(session) ? findDeparture(sql, session.communityId, user.id) : null,
	])
	const member = {
		...presentSdkMember(user),
		custom_fields: customFields,
		question_answers: [],
		member_since: user.created_at.getTime(),
		...(isCm(session) ? { status: departure ?? 'active' } : {}),
	}
	return { member, user: member }
}

/** GET /community/member/profile */
export async function readProfile(session: Session, ref: MemberRef) {
	return presentProfile(session, await memberOf(session, ref))
}

/** PUT /community/member/profile: the caller's own name, image and custom fields. */
export async function editProfile(session: Session, edit: ProfileEdit) {
	const user = (await findUserById(sql, session.communityId, session.userId)) as UserRow
	if (edit.user_unique_id !== undefined && edit.user_unique_id !== user.user_unique_id)
		throw forbidden('You may edit only your own profile')
	const name = (edit.name ?? edit.user_name)?.trim()
	if (name !== undefined && name === '') throw badRequest('user_name must not be empty')
	const imageUrl = edit.image_url ?? undefined
	if (name === undefined && imageUrl === undefined && !edit.custom_fields)
		throw badRequest('user_name, image_url or custom_fields is required')
	let edited = user
	if (name !== undefined || imageUrl !== undefined) {
		await updateProfile(sql, session.communityId, user.id, name ?? user.name, imageUrl)
		await feedManager.onUsersChanged(session.communityId, [user.id])
		edited = { ...user, name: name ?? user.name, image_url: imageUrl ?? user.image_url }
	}
	if (edit.custom_fields)
		await mergeCustomFields(sql, session.communityId, user.id, edit.custom_fields)
	return presentProfile(session, edited)
}

/** GET /community/member/state: the caller as a member, with their rights. */
export async function memberState(session: Session) {
	const user = await findUserById(sql, session.communityId, session.userId)
	if (!user) throw notFound('Member')
	const member = presentSdkMember({ ...user, role: session.role })
	return {
		member,
		member_rights: presentRights(session.role, session.deniedRights ?? []),
		state: member.state,
		tool_state: 0,
		edit_required: false,
		created_at: String(user.created_at.getTime()),
	}
}

/** GET /community/member/chatroom: rooms the member is seated in that the caller may see. */
export async function memberChatrooms(session: Session, filters: MemberChatroomFilters) {
	const member = await memberOf(session, filters)
	const viewer = chatViewer(session)
	const { page, pageSize, offset } = paging(filters.page, filters.page_size)
	const secret = await visibleSecretRooms(sql, viewer)
	const { rows, total } = await listRoomsOfMember(
		sql,
		session.communityId,
		member.id,
		{ userId: viewer.userId, secret },
		pageSize,
		offset,
	)
	return { chatrooms: await presentRooms(viewer, rows), total_chatroom_count: total, page }
}

/**
 * GET /community/questions: plaza keeps no community questions (no route defines
 * them), so the list is empty, which the SDKs read as "nothing to answer".
 */
export const communityQuestions = () => ({ questions: [] as never[] })
