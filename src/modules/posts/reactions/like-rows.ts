// The like toggle, one way for posts and comments: a request's mode (set, unset,
// toggle), its row written by the set-based setLikes (repo.ts), what that did turned
// into the request's outcome, and a toggle that met a concurrent change of its row
// settled by a second statement. like-batch.ts writes a batch of post likes with these;
// setLike (service.ts) writes one comment like with the same steps.
import type { Db } from '../../../lib/db'
import type { LikeInput } from './model'
import { type LikeMode, type LikeTarget, type LikeWrite, removeLikes, setLikes } from './repo'

/** Whether the like is there now, whether this request added it, the counter's change. */
export interface LikeOutcome {
	liked: boolean
	added: boolean
	delta: number
}

export const modeOf = (input: LikeInput): LikeMode =>
	input.value === true ? 'set' : input.value === false ? 'unset' : 'toggle'

/**
 * The outcome of a write from what setLikes did to its row: added (true), removed
 * (false) or nothing (undefined: a set of a like already there, an unset of one not
 * there, or a toggle that raced — settleRacedToggles finishes that one).
 */
export function outcomeOf(mode: LikeMode, added: boolean | undefined): LikeOutcome {
	if (added === true) return { liked: true, added: true, delta: 1 }
	if (added === false) return { liked: false, added: false, delta: -1 }
	return { liked: mode === 'set', added: false, delta: 0 }
}

/**
 * Toggles that found the like and could not remove it: another transaction changed it
 * meanwhile. Removed by a statement that sees that change; counted only if it removed it.
 */
export async function settleRacedToggles(
	tx: Db,
	communityId: number,
	target: LikeTarget,
	items: { write: LikeWrite; delta: number }[],
): Promise<void> {
	const raced = items.filter((i) => i.write.mode === 'toggle' && i.delta === 0)
	if (raced.length === 0) return
	const removed = await removeLikes(
		tx,
		communityId,
		target,
		raced.map((i) => ({ targetId: i.write.targetId, userId: i.write.userId })),
	)
	const gone = new Set(removed.map((r) => `${r.target_id}:${r.user_id}`))
	for (const i of raced) if (gone.has(`${i.write.targetId}:${i.write.userId}`)) i.delta = -1
}

/** One like row written (setLikes, then a raced toggle settled): its outcome. */
export async function writeLike(tx: Db, communityId: number, target: LikeTarget, write: LikeWrite) {
	const [change] = await setLikes(tx, communityId, target, [write])
	const item = { write, ...outcomeOf(write.mode, change?.added) }
	await settleRacedToggles(tx, communityId, target, [item])
	const { liked, added, delta } = item
	return { liked, added, delta }
}
