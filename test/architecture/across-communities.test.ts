// The statements that span communities (DESIGN §21) are named exceptions: every call of
// acrossCommunities (lib/db.ts), and of claimPerCommunity (lib/per-community.ts, whose
// find step runs inside it), is listed here by file and enclosing top-level function,
// with why it cannot name one community. A new call fails until it is added with its
// reason; an entry whose call is gone fails until it is removed.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Glob } from 'bun'

const ALLOWED: Record<string, string> = {
	'src/lib/per-community.ts claimPerCommunity':
		'the claim helper: finds the communities with claimable rows, no lock (its callers are listed)',
	'src/webhooks/repo.ts takeUnqueued':
		'the webhook relay: which communities have deliveries not yet in the Redis schedule',
	'src/webhooks/repo.ts queuedPendingPage':
		'the webhook reconciler: pages every community’s open deliveries to find those Redis lost',
	'src/webhooks/repo.ts pruneDeliveryLog':
		'the nightly prune: which communities hold attempt-log rows past their 30 days',
	'src/push/repo.ts takeUnqueued':
		'the push relay: which communities have deliveries not yet in the Redis schedule',
	'src/push/repo.ts openPage':
		'the push reconciler: pages every community’s open deliveries to find those Redis lost',
	'src/lib/migrate.ts migrate':
		'schema migrations: every shard, every community (0200 re-checks foreign keys)',
	'src/import/jobs-repo.ts claimJob': 'the import runner: which communities have a job to claim',
	'src/import/jobs-repo.ts deleteStaleUploads':
		'the import runner: drops uploads whose receiving process died, in any community',
	'src/live/owed-repo.ts communitiesOwed':
		'the live-resets job: which communities are owed a reset marker',
	'src/modules/idempotency/repo.ts deleteExpiredKeys':
		'the idempotency cleanup: keys are spread by scope, not community; expired ones of every scope',
	'src/modules/sessions/repo.ts findRefreshTokenCommunity':
		'a refresh token issued before tokens carried their community: found by the token alone',
	'src/modules/auth/revocation.ts restoreRevocations':
		'after a Redis loss: the revocation marks of every community, rebuilt from Postgres',
	'src/modules/sessions/repo.ts communitiesWithExpiredRefreshTokens':
		'the refresh-token cleanup: which communities hold tokens expired for over a day',
	'src/modules/topics/repo.ts flushTopicCounts':
		'the topic-counts job: which communities have count deltas to fold',
	'src/modules/conversations/notices.ts expandDueNotices':
		'the chat notice worker: which communities hold the oldest due notices (then claimed one community at a time)',
	'src/modules/conversations/notices.ts failingChatNotices':
		'/ready and jobs_failing: the chat notices that keep failing, in every community',
	'src/timelines/fanout.ts dueCommunities':
		'the fan-out worker: which communities have due jobs (retries, expired leases, a missed NOTIFY)',
	'src/timelines/fanout.ts countFailing':
		'/ready and jobs_failing: the failing fan-out jobs of every community',
	'src/jobs/fanout-prune.ts fanOutPruneJob':
		'the hourly prune: finished fan-out jobs of every community, no row lock',
	'src/timelines/feed-marks.ts repairUnconfirmed':
		'the feeds-reconcile pass: stale feed marks of every community (then re-placed per community)',
	'src/timelines/recompute.ts recomputeActiveUsers':
		'the recompute job: pages the readers of every community (each recomputed in their own)',
}

const root = resolve(import.meta.dir, '../..')
const doors = /\b(acrossCommunities|claimPerCommunity)\(/g
const topLevel = /^(?:export\s+)?(?:async\s+)?(?:function\*?\s+(\w+)|(?:const|let)\s+(\w+))/gm

/** `file function` for every call of a door, the function being the top-level declaration around it. */
function callSites(): string[] {
	const sites = new Set<string>()
	for (const file of new Glob('src/**/*.ts').scanSync({ cwd: root })) {
		const source = readFileSync(join(root, file), 'utf8')
		const declarations = [...source.matchAll(topLevel)].map((m) => ({
			at: m.index ?? 0,
			name: m[1] ?? m[2],
		}))
		for (const call of source.matchAll(doors)) {
			const at = call.index ?? 0
			if (/function\s*$/.test(source.slice(Math.max(0, at - 20), at))) continue // its definition
			const around = declarations.filter((d) => d.at < at).at(-1)
			sites.add(`${file} ${around?.name ?? '(top level)'}`)
		}
	}
	return [...sites].sort()
}

test('every call that spans communities is a named exception, and every exception is called', () => {
	const sites = callSites()
	expect(sites.filter((site) => !(site in ALLOWED))).toEqual([])
	expect(Object.keys(ALLOWED).filter((entry) => !sites.includes(entry))).toEqual([])
})

test('the call-site scan sees calls (a positive control)', () => {
	expect(callSites()).toContain('src/webhooks/repo.ts takeUnqueued')
	expect(callSites().length).toBeGreaterThanOrEqual(Object.keys(ALLOWED).length)
})
