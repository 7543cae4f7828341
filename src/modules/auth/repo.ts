import type { Db } from '../../lib/db'
import type { Role } from '../../lib/tokens'

/** The role as stored now: granting or removing CM takes effect without a new token. */
export async function findCurrentRole(db: Db, userId: number): Promise<Role | null> {
	const [row] = await db`select role from users where id = ${userId} and not is_deleted`
	return (row?.role as Role) ?? null
}
