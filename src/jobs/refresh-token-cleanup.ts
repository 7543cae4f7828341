// Keeps refresh_tokens small: every app launch writes a token, and none was ever
// deleted. A token expired for longer than an access token can live is refused anyway
// and can have no live access token left, so neither its reuse detection nor its
// revocation (modules/auth/revocation.ts reads the last day's) matters any more.
// Community by community (DESIGN §21): those holding such tokens are found first.
import { sql } from '../lib/db'
import { log } from '../lib/log'
import { MAX_ACCESS_TOKEN_MINUTES } from '../lib/tokens'
import {
	communitiesWithExpiredRefreshTokens,
	deleteExpiredRefreshTokens,
} from '../modules/sessions/repo'

const GRACE_MINUTES = MAX_ACCESS_TOKEN_MINUTES + 5
const BATCH = 10_000

export const refreshTokenCleanupJob = {
	name: 'refresh-token-cleanup',
	pattern: '29 * * * *',
	async run() {
		let removed = 0
		for (const communityId of await communitiesWithExpiredRefreshTokens(GRACE_MINUTES)) {
			for (;;) {
				const n = await deleteExpiredRefreshTokens(sql, communityId, GRACE_MINUTES, BATCH)
				removed += n
				if (n < BATCH) break
			}
		}
		if (removed > 0) log.info({ removed }, 'expired refresh tokens deleted')
	},
}
