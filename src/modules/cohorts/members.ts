// Who a cohort body names: `uuids` (service uuids) and `member_ids` (member ids), each
// resolved in the caller's community. Unknown ones are a 400 naming them, before
// anything is written.
import type { Db } from '../../lib/db'
import { badRequest } from '../../lib/errors'
import { numericId } from '../chatrooms/repo'
import { findUsersByIds, findUsersByUuids } from '../users/repo'

export async function resolveMembers(
	db: Db,
	communityId: number,
	uuids: string[] = [],
	memberIds: (string | number)[] = [],
): Promise<number[]> {
	const byUuid = await findUsersByUuids(db, communityId, uuids)
	const knownUuids = new Set(byUuid.map((user) => user.uuid.toLowerCase()))
	const unknownUuids = uuids.filter((uuid) => !knownUuids.has(uuid.toLowerCase()))
	if (unknownUuids.length > 0) throw badRequest(`Unknown uuids: ${listed(unknownUuids)}`)
	const ids = memberIds.map((id) => numericId(id))
	const byId = (
		await findUsersByIds(db, communityId, ids.filter((id) => id !== null).map(Number))
	).filter((user) => user.community_id === communityId)
	const knownIds = new Set(byId.map((user) => String(user.id)))
	const unknownIds = memberIds.filter((_, i) => !knownIds.has(ids[i] ?? ''))
	if (unknownIds.length > 0)
		throw badRequest(`Unknown member_ids: ${listed(unknownIds.map(String))}`)
	return [...new Set([...byUuid, ...byId].map((user) => user.id))]
}

/** At most 20 names in a message, then a count of the rest. */
function listed(values: string[]): string {
	const shown = values.slice(0, 20).map((v) => v.slice(0, 64))
	const more = values.length - shown.length
	return shown.join(', ') + (more > 0 ? ` and ${more} more` : '')
}
