// The live connections this process holds: the per-user limit, the one-second sweep
// (expiry, slow readers, pings, token re-checks) and, when the Redis subscriber had to
// reconnect (messages of the gap are lost), closing every connection with the resumable
// code so each client resumes from its cursors.
import { CloseCode, type LiveConnection } from './connection'
import { onSubscriberLost } from './hub'
import { liveConnections } from './metrics'

/** Per process: a user's devices and tabs, not a fleet-wide count. */
export const MAX_CONNECTIONS_PER_USER = 10

const open = new Set<LiveConnection>()
const perUser = new Map<number, number>()
let sweep: ReturnType<typeof setInterval> | undefined

export const connectionsOf = (userId: number): number => perUser.get(userId) ?? 0

export function register(connection: LiveConnection): void {
	const { userId } = connection.holder
	open.add(connection)
	perUser.set(userId, connectionsOf(userId) + 1)
	liveConnections.inc({ transport: connection.sink.transport })
	connection.onClosed = () => {
		open.delete(connection)
		const left = connectionsOf(userId) - 1
		if (left > 0) perUser.set(userId, left)
		else perUser.delete(userId)
		liveConnections.dec({ transport: connection.sink.transport })
	}
	if (!sweep) {
		sweep = setInterval(() => {
			const now = Date.now()
			for (const c of open) c.tick(now)
		}, 250)
		sweep.unref()
	}
}

onSubscriberLost(() => {
	for (const c of [...open])
		c.close(CloseCode.resume, 'live updates interrupted; resume with your cursors')
})
