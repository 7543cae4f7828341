// Client error reports go to the log stream (pino), one line per report, tagged with
// who sent them; nothing is stored. A member may send LOGS_PER_MINUTE requests a
// minute (a crashing app in a loop must not flood the logs); past it, 429.
import { log } from '../../lib/log'
import { limit } from '../../lib/rate-limit'
import type { Session } from '../auth/plugin'
import type { PushLogsInput } from './model'

export const LOGS_PER_MINUTE = 30

/** LMSeverity 3 (WARNING) and above are warnings here: a client's error is not the server's. */
const levelOf = (severity: number | null | undefined) =>
	severity !== null && severity !== undefined && severity >= 3 && severity !== 8 ? 'warn' : 'info'

export async function pushLogs(session: Session, input: PushLogsInput): Promise<void> {
	await limit('logs', String(session.userId), LOGS_PER_MINUTE)
	for (const entry of input.logs) {
		log[levelOf(entry.severity)](
			{
				client_log: entry,
				community_id: session.communityId,
				user_uuid: session.uuid,
			},
			'client log',
		)
	}
}
