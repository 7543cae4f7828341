// Passing answers of the token checks (revocation.ts), kept in the process for
// STATE_TTL_MS: a client's requests within that second ask Redis nothing. Dropped for a
// user by a revocation or a role change made in this process; other processes see
// either when their copy expires. Bounded (the oldest user out first).
import type { AccessClaims, Role } from '../../lib/tokens'

/** A passing answer: the token's role and the rights a CM removed (rights.ts). */
export interface PassingState {
	role: Role
	deniedRights: readonly number[]
}

const STATE_TTL_MS = 1000
const STATES_MAX = 50_000

/** Passing answers by user, then by the token's family ('' for none) and `iat`. */
const states = new Map<number, Map<string, PassingState & { until: number }>>()

/** Drops the user's kept answers (a revocation or a role change in this process). */
export function forgetTokenStates(userId: number): void {
	states.delete(userId)
}

export function keptState(claims: AccessClaims): PassingState | null {
	const hit = states.get(claims.uid)?.get(`${claims.fid ?? ''}|${claims.iat ?? 0}`)
	return hit && hit.until > Date.now() ? hit : null
}

export function keepState(claims: AccessClaims, state: PassingState, since: number): void {
	if (states.size >= STATES_MAX) states.delete(states.keys().next().value as number)
	let byToken = states.get(claims.uid)
	// A user's few live tokens; past 16 (old ones kept by refreshes) start again.
	if (!byToken || byToken.size >= 16) {
		byToken = new Map()
		states.set(claims.uid, byToken)
	}
	// From when the check was sent: an answer never outlives a revocation by more than the TTL.
	byToken.set(`${claims.fid ?? ''}|${claims.iat ?? 0}`, {
		role: state.role,
		deniedRights: state.deniedRights,
		until: since + STATE_TTL_MS,
	})
}
