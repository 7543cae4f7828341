// Users of a community: members, CMs and dashboard owners.
import type { Db } from '../../lib/db'
import { isUuid } from '../../lib/ids'
import { MAX_ID } from '../../lib/input-limits'
import { paged } from '../../lib/paged'
import type { Role } from '../../lib/tokens'
import type { CachedUser } from '../../timelines'

/** How a member left the community (users.departure; null while a member). */
export type Departure = 'left' | 'removed' | 'banned'

/** A user row: the fields the feed engine caches (CachedUser) plus the rest. */
export interface UserRow extends CachedUser {
	role: Role
	last_active_at: Date
	created_at: Date
}

const otherColumns = [
	'uuid',
	'community_id',
	'user_unique_id',
	'name',
	'image_url',
	'custom_title',
	'is_guest',
	'is_deleted',
	'role',
	'last_active_at',
	'created_at',
]
/**
 * The columns of a UserRow (qualified by `alias` when the statement joins), for every
 * statement that returns users. The id is bigint (migration 0200): read as float8, a JS
 * number, exact to 2^53, as the other bigint ids TypeScript holds as numbers.
 */
export function userColumns(db: Db, alias?: string) {
	const named = (column: string) => (alias ? `${alias}.${column}` : column)
	return db`${db(named('id'))}::float8 as id, ${db(otherColumns.map(named))}`
}

export async function findUserById(
	db: Db,
	communityId: number,
	id: number,
): Promise<UserRow | null> {
	const [row] = await db<UserRow[]>`
		select ${userColumns(db)} from users where community_id = ${communityId} and id = ${id}`
	return row ?? null
}

export async function findUserByUuid(
	db: Db,
	communityId: number,
	uuid: string,
): Promise<UserRow | null> {
	// Not a uuid: no such user (Postgres would reject the cast with an error).
	if (!isUuid(uuid)) return null
	const [row] = await db<UserRow[]>`
		select ${userColumns(db)} from users where community_id = ${communityId} and uuid = ${uuid}`
	return row ?? null
}

// Not a user id (fractional, or past what a JS number holds exactly): no such user, not a 500.
const userIds = (ids: number[]) =>
	ids.filter((id) => Number.isInteger(id) && id > 0 && id <= MAX_ID)

export async function findUsersByIds(
	db: Db,
	communityId: number,
	ids: number[],
): Promise<UserRow[]> {
	const valid = userIds(ids)
	if (valid.length === 0) return []
	// `= any(array(select unnest(…)))`, not `= any(…)`: Postgres re-plans `id = any($1)` on
	// every call (a custom plan for a one-element array always looks cheaper than the
	// generic one). 3,000 one-id reads: 36 µs of planning and execution a call, 13 this way
	// (24 with `in (select unnest(…))`); it is every new post's authors' read.
	return db<UserRow[]>`
		select ${userColumns(db)} from users
		where community_id = ${communityId} and id = any(array(select unnest(${valid}::int8[])))`
}

/** findUsersByIds, with the authors of the posts `postIds` (a batch of likes: likers and creators in one read). */
export function findUsersAndPostAuthors(
	db: Db,
	communityId: number,
	ids: number[],
	postIds: string[],
) {
	return db<UserRow[]>`
		select ${userColumns(db)} from users
		where community_id = ${communityId} and id = any(array(
			select unnest(${userIds(ids)}::int8[]) union
			select user_id from posts where community_id = ${communityId} and id = any(${postIds}::text[])))`
}

export async function findUsersByUuids(
	db: Db,
	communityId: number,
	uuids: string[],
): Promise<UserRow[]> {
	const valid = uuids.filter(isUuid)
	if (valid.length === 0) return []
	return db<UserRow[]>`
		select ${userColumns(db)} from users where community_id = ${communityId} and uuid = any(${valid}::uuid[])`
}

export interface NewUser {
	uuid: string
	community_id: number
	/** null for the owner only (a database check enforces it). */
	user_unique_id: string | null
	name: string
	image_url: string
	is_guest: boolean
	role: Role
	country_code?: string | null
	mobile_no?: string | null
}

/** Inserts the user, or returns null when the unique id is already taken (a concurrent first call). */
export async function insertUser(db: Db, user: NewUser): Promise<UserRow | null> {
	const [row] = await db<UserRow[]>`
		insert into users (uuid, community_id, user_unique_id, name, image_url, is_guest, role, country_code, mobile_no)
		values (${user.uuid}, ${user.community_id}, ${user.user_unique_id}, ${user.name}, ${user.image_url},
			${user.is_guest}, ${user.role}, ${user.country_code ?? null}, ${user.mobile_no ?? null})
		on conflict (community_id, user_unique_id) do nothing
		returning ${userColumns(db)}`
	return row ?? null
}

export async function updateProfile(
	db: Db,
	communityId: number,
	id: number,
	name: string,
	imageUrl: string | undefined,
): Promise<void> {
	await db`
		update users set name = ${name}, image_url = coalesce(${imageUrl ?? null}, image_url), last_active_at = now()
		where community_id = ${communityId} and id = ${id}`
}

export async function setRole(db: Db, communityId: number, id: number, role: Role): Promise<void> {
	await db`update users set role = ${role} where community_id = ${communityId} and id = ${id}`
}

/** The owner's phone number, which logs in to the owner's community only (owner_phones, 0196). */
export async function insertOwnerPhone(
	db: Db,
	owner: UserRow,
	countryCode: string,
	mobileNo: string,
) {
	await db`
		insert into owner_phones (country_code, mobile_no, owner_community_id, user_id)
		values (${countryCode}, ${mobileNo}, ${owner.community_id}, ${owner.id})`
}

/**
 * The dashboard owner with this phone number: the OTP login has the number alone, so
 * the owner's community comes from owner_phones (a reference table on Citus, DESIGN §21),
 * then the owner from that community.
 */
export async function findOwnerByMobile(
	db: Db,
	countryCode: string,
	mobileNo: string,
): Promise<UserRow | null> {
	const [phone] = await db<{ owner_community_id: number; user_id: number }[]>`
		select owner_community_id, user_id::float8 as user_id from owner_phones
		where country_code = ${countryCode} and mobile_no = ${mobileNo}`
	if (!phone) return null
	const owner = await findUserById(db, phone.owner_community_id, phone.user_id)
	return owner?.role === 'owner' ? owner : null
}

/**
 * Members whose name or user_unique_id contains `search` (any case), by name, with the
 * total; also those who left, were removed or banned, with their `departure`.
 */
export async function searchUsers(
	db: Db,
	communityId: number,
	search: string,
	limit: number,
	offset: number,
): Promise<{ rows: (UserRow & { departure: Departure | null })[]; total: number }> {
	const pattern = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
	return paged<UserRow & { departure: Departure | null }>(db, {
		columns: db`departure, ${userColumns(db)}`,
		from: db`from users where community_id = ${communityId} and not is_deleted
			and (name ilike ${pattern} or user_unique_id ilike ${pattern})`,
		orderBy: db`lower(name), id`,
		limit,
		offset,
	})
}

/** Users named by service uuid or by the customer's own id (custom activities take both). */
export async function findUsersByRefs(
	db: Db,
	communityId: number,
	refs: string[],
): Promise<UserRow[]> {
	if (refs.length === 0) return []
	return db<UserRow[]>`
		select ${userColumns(db)} from users where community_id = ${communityId} and not is_deleted
			and (uuid = any(${refs.filter(isUuid)}::uuid[]) or user_unique_id = any(${refs}::text[]))`
}

export async function setCustomTitle(
	db: Db,
	communityId: number,
	id: number,
	title: string,
): Promise<void> {
	await db`
		update users set custom_title = ${title} where community_id = ${communityId} and id = ${id}`
}
