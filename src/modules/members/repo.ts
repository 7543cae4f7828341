// SQL of the member directory, profile fields and departures (users.departure:
// left, removed, banned). Active members: not deleted, not departed, not the owner
// (the dashboard's identity, outside the SDKs' directory).
import type { Db } from '../../lib/db'
import { paged } from '../../lib/paged'
import type { Role } from '../../lib/tokens'
import { type Departure, type UserRow, userColumns } from '../users/repo'

export interface DirectoryPage {
	role?: Exclude<Role, 'owner'>
	chatroomId?: string
	search?: string
	limit: number
	offset: number
}

const active = (db: Db) => db`not is_deleted and departed_at is null and role <> 'owner'`

/** A page of active members by name, filtered by role, chatroom seat and part of the name. */
export function listDirectory(db: Db, communityId: number, page: DirectoryPage) {
	const pattern = page.search ? `%${page.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%` : null
	return paged<UserRow>(db, {
		columns: userColumns(db),
		from: db`from users where community_id = ${communityId} and ${active(db)}
			${page.role ? db`and role = ${page.role}` : db``}
			${pattern ? db`and name ilike ${pattern}` : db``}
			${
				page.chatroomId
					? db`and id in (select user_id from chatroom_participants
						where community_id = ${communityId} and chatroom_id = ${page.chatroomId})`
					: db``
			}`,
		orderBy: db`lower(name), id`,
		limit: page.limit,
		offset: page.offset,
	})
}

/** How many active CMs and members the community has. */
export async function countMembers(db: Db, communityId: number) {
	const [row] = await db<{ cms: number; members: number }[]>`
		select count(*) filter (where role = 'cm')::int as cms,
			count(*) filter (where role = 'member')::int as members
		from users where community_id = ${communityId} and ${active(db)}`
	return { cms: row?.cms ?? 0, members: row?.members ?? 0 }
}

/** The user with how they left (null while a member). */
export async function findDeparture(
	db: Db,
	communityId: number,
	userId: number,
): Promise<Departure | null> {
	const [row] = await db<{ departure: Departure | null }[]>`
		select departure from users where community_id = ${communityId} and id = ${userId}`
	return row?.departure ?? null
}

export async function findCustomFields(
	db: Db,
	communityId: number,
	userId: number,
): Promise<Record<string, unknown>> {
	const [row] = await db<{ custom_fields: Record<string, unknown> }[]>`
		select custom_fields from member_profiles
		where community_id = ${communityId} and user_id = ${userId}`
	return row?.custom_fields ?? {}
}

/** Merges `fields` into the member's custom fields (a null value removes its field). */
export async function mergeCustomFields(
	db: Db,
	communityId: number,
	userId: number,
	fields: Record<string, unknown>,
): Promise<Record<string, unknown>> {
	const removed = Object.keys(fields).filter((key) => fields[key] === null)
	const set = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null))
	const [row] = await db<{ custom_fields: Record<string, unknown> }[]>`
		insert into member_profiles (community_id, user_id, custom_fields, updated_at)
		values (${communityId}, ${userId}, ${db.json(set as never)}, now())
		on conflict (community_id, user_id) do update set
			custom_fields = (member_profiles.custom_fields || excluded.custom_fields) - ${removed}::text[],
			updated_at = excluded.updated_at
		returning custom_fields`
	return row?.custom_fields ?? {}
}

/** Marks the member departed (a CM becomes a member again); false when the user is the owner or gone. */
export async function markDeparted(
	db: Db,
	communityId: number,
	userId: number,
	departure: Departure,
	by: number,
): Promise<boolean> {
	const rows = await db`
		update users set departed_at = now(), departure = ${departure}, departed_by = ${by},
			role = case when role = 'cm' then 'member' else role end
		where community_id = ${communityId} and id = ${userId} and role <> 'owner' and not is_deleted
		returning id`
	return rows.length > 0
}

/** Lifts a ban: the customer id may start a session again (and so become a member). */
export async function liftBan(db: Db, communityId: number, userId: number): Promise<boolean> {
	const rows = await db`
		update users set departure = 'removed', departed_by = null
		where community_id = ${communityId} and id = ${userId} and departure = 'banned'
		returning id`
	return rows.length > 0
}
