// The Idempotency-Key rule (DESIGN §14): a repeat of a POST by the same caller, to the
// same method and path, with the same key, within 24 hours, gets the first answer
// (status and body) and changes nothing. A repeat while the first still runs waits for
// it, then gets its answer — or a 409 if it takes too long; the handler never runs
// twice. The same key with a different body is a 422.

import { decrypt, encrypt, sha256 } from '../../lib/crypto'
import { sql } from '../../lib/db'
import { AppError, conflict } from '../../lib/errors'
import { claimKey, completeKey, findKey, type KeyRef, releaseKey } from './repo'

/** How long a claim is held for its handler; past it a still unanswered claim is a crashed request. */
const CLAIM_SECONDS = 60
const KEEP_HOURS = 24
/** How long a concurrent repeat waits for the first request's answer before a 409. */
const WAIT_MS = 10_000
const POLL_MS = 25

export const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/

export type Start = { run: true } | { run: false; status: number; body: string }

export const fingerprintOf = (body: unknown) => sha256(JSON.stringify(body ?? null))

/** Claims the key, or returns the first answer to replay (waiting while it is being made). */
export async function startKeyed(ref: KeyRef, fingerprint: string): Promise<Start> {
	const deadline = Date.now() + WAIT_MS
	for (;;) {
		if (await claimKey(sql, ref, fingerprint, CLAIM_SECONDS, KEEP_HOURS)) return { run: true }
		const row = await findKey(sql, ref)
		// A running claim is waited for whatever its body: it may still fail and release the key.
		if (row && row.status !== null && row.sealed_body !== null) {
			if (row.fingerprint !== fingerprint)
				throw new AppError(422, 'Idempotency-Key was already used with a different request body')
			return { run: false, status: row.status, body: decrypt(row.sealed_body) }
		}
		if (row?.claim_expired)
			throw conflict(
				'An earlier request with this Idempotency-Key did not finish; its outcome is unknown, use a new key',
			)
		if (Date.now() > deadline)
			throw conflict('A request with this Idempotency-Key is still in progress')
		await Bun.sleep(POLL_MS)
	}
}

/**
 * Only successes are kept. A failed request changed nothing, so running its repeat
 * cannot write twice — and a migration re-run after fixing the cause (a missing user,
 * a rate limit) should go through rather than replay the old failure.
 */
const replayable = (status: number) => status >= 200 && status < 300

/** Records the first successful answer for the key, or releases the claim after a failure. */
export async function finishKeyed(ref: KeyRef, status: number, body: string | null): Promise<void> {
	if (body !== null && replayable(status)) await completeKey(sql, ref, status, encrypt(body))
	else await releaseKey(sql, ref)
}
