// First launches of customer ids: the user, its profile.created event and the launch's
// refresh token written by ONE statement (sessions/repo.ts insertFirstLaunches), which
// commits on its own. First launches of one community that arrive together share it
// (lib/coalesce.ts): one round trip and one commit for all of them, on one Citus shard. Two first launches of one id in a batch
// make one user (the first one's name and image) and both get it; a launch whose id was
// taken meanwhile (`null`) is a returning launch.

import { coalesce } from '../../lib/coalesce'
import { sql } from '../../lib/db'
import { newUuid } from '../../lib/ids'
import { newEventId, recordEventsFromCtes } from '../../webhooks/outbox'
import { presentUserForWebhook } from '../users/present'
import type { UserRow } from '../users/repo'
import { insertFirstLaunches, type NewUserLaunch } from './repo'

/** A first launch with the profile its user starts with. */
export type FirstLaunch = Omit<NewUserLaunch, 'uuid' | 'event_id' | 'event_data'>

/** The launch with its new user's uuid, and the user's profile.created data but the id. */
function newUserLaunch(launch: FirstLaunch): NewUserLaunch {
	const uuid = newUuid()
	// The user as the statement inserts it; its id is the insert's (the statement sets the event's user.id).
	const user = {
		id: 0,
		uuid,
		community_id: launch.communityId,
		user_unique_id: launch.userUniqueId,
		name: launch.name,
		image_url: launch.imageUrl,
		custom_title: '',
		is_guest: launch.isGuest,
		is_deleted: false,
	}
	return {
		...launch,
		uuid,
		event_id: newEventId(),
		event_data: JSON.stringify({ user: presentUserForWebhook(user) }),
	}
}

/** The created user with its token stored, or null when the customer id was taken meanwhile. */
export const firstLaunches = coalesce<FirstLaunch, UserRow | null>({
	group: (launch) => launch.communityId,
	async together(launches) {
		const communityId = (launches[0] as FirstLaunch).communityId
		const created = await insertFirstLaunches(
			sql,
			communityId,
			launches.map(newUserLaunch),
			'profile.created',
			(rows) => recordEventsFromCtes(sql, communityId, rows),
		)
		return launches.map((launch) => created.get(launch.token_hash) ?? null)
	},
})
