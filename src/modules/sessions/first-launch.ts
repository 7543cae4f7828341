// First launches of customer ids: the user, its profile.created event and the launch's
// refresh token in one transaction. Launches that arrive together share it
// (lib/group-commit.ts): one insert for their users, one for their events and one for
// their tokens, whatever their number. A customer id is in at most one batch at a time,
// so two first calls of one id never race inside a batch; the one that finds the id
// taken (`null`) is a returning launch.
import type postgres from 'postgres'
import { recordEvents } from '../../events/outbox'
import { commitNow, type Db, pipelinedTransaction } from '../../lib/db'
import { batchCommit } from '../../lib/group-commit'
import { newUuid } from '../../lib/ids'
import { presentUserForWebhook } from '../users/present'
import { insertMembers, type UserRow } from '../users/repo'
import { insertRefreshTokens, type Launch } from './repo'

export interface FirstLaunch extends Launch {
	name: string
	imageUrl: string
	isGuest: boolean
}

const idOf = (communityId: number, userUniqueId: string | null) => `${communityId}:${userUniqueId}`

async function createUsers(tx: Db, launches: FirstLaunch[]) {
	const created = await insertMembers(tx, launches.map(newMember))
	const byId = new Map(created.map((user) => [idOf(user.community_id, user.user_unique_id), user]))
	const users = launches.map((l) => byId.get(idOf(l.communityId, l.userUniqueId)) ?? null)
	const made = launches.flatMap((launch, i) => {
		const user = users[i]
		return user ? [{ launch, user }] : []
	})
	if (made.length === 0) return users
	// Both in one round trip, COMMIT right behind them (pipelinedTransaction).
	const written = Promise.all([
		recordEvents(
			tx,
			made.map(({ user }) => ({
				communityId: user.community_id,
				event: 'profile.created',
				data: { user: presentUserForWebhook(user) },
			})),
		),
		insertRefreshTokens(
			tx,
			made.map(({ launch, user }) => ({ ...launch, user_id: user.id })),
		),
	])
	commitNow(tx)
	await written
	return users
}

const newMember = (launch: FirstLaunch) => ({
	uuid: newUuid(),
	community_id: launch.communityId,
	user_unique_id: launch.userUniqueId,
	name: launch.name,
	image_url: launch.imageUrl,
	is_guest: launch.isGuest,
})

/** The created user with its token stored, or null when the customer id was taken meanwhile. */
export const firstLaunches = batchCommit<FirstLaunch, UserRow | null, never, postgres.ReservedSql>({
	key: (launch) => idOf(launch.communityId, launch.userUniqueId),
	// BEGIN rides with the users' insert and COMMIT with the events and tokens: two round
	// trips a batch instead of four.
	open: pipelinedTransaction,
	async together(tx, launches) {
		const users = await createUsers(tx, launches)
		return users.map((value) => ({ ok: true, value }))
	},
})
