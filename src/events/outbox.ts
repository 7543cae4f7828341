// The outbox: an event is a row written in the same transaction as the change that
// caused it, so no event is lost to a crash between the change and its delivery.
import type { Db } from '../lib/db'
import { newId } from '../lib/ids'

export type EventSource = 'feed' | 'chat'

export interface NewEvent {
	communityId: number
	event: string
	source?: EventSource
	data: unknown
}

export async function recordEvent(tx: Db, input: NewEvent): Promise<string> {
	const id = newId()
	await tx`
		insert into events (id, community_id, event, source, data, created_at)
		values (${id}, ${input.communityId}, ${input.event}, ${input.source ?? 'feed'}, ${tx.json(input.data as never)}, ${Date.now()})`
	return id
}
