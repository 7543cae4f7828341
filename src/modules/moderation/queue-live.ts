// The review queue's counts for CMs' live `community` scope, told after a report is
// filed or closed and after a post waits for approval. Absolute counts, so a missed one
// is mended by the next. Not awaited by the writer (publishLive never throws).
import { sql } from '../../lib/db'
import { log } from '../../lib/log'
import { liveScopes, publishLive } from '../../live'
import { queueCounts } from './queue-repo'

export function announceQueue(communityId: number, cause: string): void {
	void queueCounts(sql, communityId)
		.then((counts) =>
			publishLive(liveScopes.community(communityId), {
				type: 'queue',
				data: { cause, ...counts },
			}),
		)
		.catch((error) => log.error({ err: error }, 'live: queue counts not announced'))
}
